'use strict';
// npm run build:linux-arm64 [-- --testing]
// Cross-builds the addon for linux-arm64-gnu on an x86_64 Linux machine:
// http-fastpath.linux-arm64-gnu.node in the package root (where the loader's
// "local build" and `napi artifacts` look), and with --testing also the
// test-hooks addon that npm run test:linux-arm64 needs. Installs the Debian
// packages it needs when it may, else names them.

const path = require('path');
const { buildAddon, ROOT } = require('../cargo-addon');
const { buildTestingAddon } = require('../build-testing-addon');
const { TARGET, LINKER, BUILD, ensure, rustToolchain, say } = require('./requirements');

const PLATFORM = 'linux-arm64-gnu';

function crossToolchain() {
  ensure(BUILD);
  return { ...rustToolchain(), target: TARGET, linker: LINKER };
}

// Its own directory: another rustc (Debian's) would otherwise rebuild the
// host build's dependencies each time the two alternate.
const TARGET_DIR = path.join(ROOT, 'target', 'cross');

// The release addon, and with `testing` the test-hooks one; returns their paths.
function build(toolchain, { testing }) {
  const built = [buildAddon({
    ...toolchain,
    release: true,
    targetDir: TARGET_DIR,
    out: path.join(ROOT, `http-fastpath.${PLATFORM}.node`),
  })];
  if (testing) built.push(buildTestingAddon({ ...toolchain, platform: PLATFORM, targetDir: TARGET_DIR }));
  return built;
}

function main(argv) {
  const started = Date.now();
  const toolchain = crossToolchain();
  say(`building with ${toolchain.cargo} for ${TARGET}`);
  const built = build(toolchain, { testing: argv.includes('--testing') });
  say(`built ${built.map((f) => path.relative(ROOT, f)).join(', ')} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (require.main === module) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    say(err.message);
    process.exitCode = 1;
  }
}

module.exports = { TARGET_DIR, crossToolchain, build };
