'use strict';
// Builds the addon with the `testing` feature (test-only exports such as
// __panicForTesting) into target/testing/test-hooks.<platform>.node, for
// test/native.test.js and test/file-pressure.test.js (test/helpers/test-hooks.js).
// The shipped binary never has them. A debug build: it only has to exist.

const path = require('path');
const { buildAddon, ROOT } = require('./cargo-addon');
const { platformName } = require('../lib/native/loader');

function buildTestingAddon({ platform = platformName(), targetDir = path.join(ROOT, 'target', 'testing'), ...toolchain } = {}) {
  return buildAddon({
    ...toolchain,
    features: 'testing',
    targetDir,
    out: path.join(ROOT, 'target', 'testing', `test-hooks.${platform}.node`),
  });
}

if (require.main === module) buildTestingAddon();

module.exports = { buildTestingAddon };
