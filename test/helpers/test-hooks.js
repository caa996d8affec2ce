'use strict';
// Where scripts/build-testing-addon.js puts the addon built with the `testing`
// feature for this process's platform (linux-x64-gnu natively, linux-arm64-gnu
// under emulation: `npm run test:linux-arm64`).
const path = require('path');
const { platformName } = require('../../lib/native/loader');

module.exports = path.join(__dirname, '..', '..', 'target', 'testing', `test-hooks.${platformName()}.node`);
