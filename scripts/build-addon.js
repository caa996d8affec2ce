'use strict';
// `npm install` / `npm run build`: compiles the Rust addon in release mode with
// cargo and puts it where lib/native.js loads it from.

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { ADDON } = require('../lib/native');

const root = path.join(__dirname, '..');
const libName = { linux: 'libhttp_fastpath.so', darwin: 'libhttp_fastpath.dylib', win32: 'http_fastpath.dll' }[process.platform];

execFileSync('cargo', ['build', '--release', '--lib'], { cwd: root, stdio: 'inherit' });
const targetDir = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
fs.copyFileSync(path.join(targetDir, 'release', libName), ADDON);
console.log(`http-fastpath: built ${path.relative(root, ADDON)}`);
