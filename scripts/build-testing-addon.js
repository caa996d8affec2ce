'use strict';
// Builds the addon with the `testing` feature (test-only exports such as
// __panicForTesting) into target/testing/, for test/native.test.js. The
// shipped binary never has them. A debug build: it only has to exist.

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const out = path.join(root, 'target', 'testing');
execFileSync('cargo', ['build', '--quiet', '--lib', '--features', 'testing', '--target-dir', out], { cwd: root, stdio: 'inherit' });
fs.copyFileSync(path.join(out, 'debug', 'libhttp_fastpath.so'), path.join(out, 'test-hooks.node'));
