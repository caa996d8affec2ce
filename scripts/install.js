'use strict';
// npm's install step. With a binary at hand (a local build, or the prebuilt
// http-fastpath-<platform> package that npm installed as an optional
// dependency) it does nothing. Without one it builds the addon from source
// when cargo is on PATH, in a temporary target directory that it removes, so
// the installed package holds only the .node file. Without cargo it prints
// one line and succeeds: the JS fast paths never need the addon. It never
// fails the app's install.

const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { loadNative, BINARY_NAME, ROOT } = require('../lib/native/loader');

const NATIVE_OFF = 'native features off (message builder, header store, validators); the JS fast paths are on';
const say = (line) => process.stderr.write(`http-fastpath: ${line}\n`);

function hasCargo() {
  return spawnSync('cargo', ['--version'], { stdio: 'ignore' }).status === 0;
}

// Inside a checkout (developing this package) cargo keeps ./target for
// incremental builds; inside node_modules the build directory is temporary.
function targetDir() {
  if (process.env.CARGO_TARGET_DIR) return { dir: process.env.CARGO_TARGET_DIR, temporary: false };
  if (fs.existsSync(path.join(ROOT, '.git'))) return { dir: path.join(ROOT, 'target'), temporary: false };
  return { dir: fs.mkdtempSync(path.join(os.tmpdir(), 'http-fastpath-build-')), temporary: true };
}

function buildFromSource(platform) {
  const libName = { linux: 'libhttp_fastpath.so', darwin: 'libhttp_fastpath.dylib', win32: 'http_fastpath.dll' }[process.platform];
  const { dir, temporary } = targetDir();
  say(`no prebuilt binary for ${platform}: building the addon from source with cargo (about 20 s)...`);
  try {
    const r = spawnSync('cargo', ['build', '--release', '--lib', '--target-dir', dir], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) return `cargo build failed (exit ${r.status})`;
    fs.copyFileSync(path.join(dir, 'release', libName), path.join(ROOT, `${BINARY_NAME}.${platform}.node`));
    return null;
  } finally {
    if (temporary) fs.rmSync(dir, { recursive: true, force: true });
  }
}

function main() {
  const found = loadNative();
  if (found.addon !== null) return;
  const canBuild = fs.existsSync(path.join(ROOT, 'Cargo.toml')) && process.env.HTTP_FASTPATH_BUILD !== '0';
  if (!canBuild || !hasCargo()) {
    const why = found.error.code === 'HTTP_FASTPATH_NO_BINARY' ? `no prebuilt binary for ${found.platform}` : `the binary ${found.file} does not load`;
    say(`${why} and no Rust toolchain to build one: ${NATIVE_OFF}.`);
    return;
  }
  const failure = buildFromSource(found.platform);
  const built = failure === null ? loadNative() : null;
  if (built && built.addon !== null) say(`built ${BINARY_NAME}.${found.platform}.node`);
  else say(`${failure || built.error.message}: ${NATIVE_OFF}.`);
}

try {
  main();
} catch (err) {
  say(`install step failed (${err.message}): ${NATIVE_OFF}.`);
}
