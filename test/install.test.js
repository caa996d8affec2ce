'use strict';
// The package as a user gets it: packed with `npm pack` (and the platform
// package with the binary, as `napi artifacts` + `napi pre-publish` would
// publish it), installed into a fresh app with cargo hidden from PATH (a
// PATH of links to just node, npm and sh, so it works where cargo shares a
// directory with them).
//   - both tarballs: the native features load from the platform package,
//     nothing is compiled, no build directory is left;
//   - the main tarball alone: the install succeeds, says in one line which
//     native features are off, and the JS fast paths are active;
//   - the main tarball alone with cargo on the PATH: the install builds the
//     addon from source, shows cargo's progress, and leaves only the .node
//     file (no build directory) in the package. Node-independent and ~25 s of
//     compiling, so it runs on Node 20 only (CI's first line).

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { findOnPath, pathWithOnly } = require('./helpers/program-path');

const root = path.join(__dirname, '..');
const platform = require('../lib/native/loader').platformName();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fastpath-install-'));
test.after(() => fs.rmSync(work, { recursive: true, force: true }));

// PATH with node, npm and sh but without cargo, wherever cargo lives.
const installPath = pathWithOnly({ node: process.execPath, npm: null, sh: null });
test.after(() => fs.rmSync(installPath, { recursive: true, force: true }));
const env = { ...process.env, PATH: installPath, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

function sh(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  assert.strictEqual(r.status, 0, `${cmd} ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout + r.stderr;
}

function pack(dir, packEnv = env) {
  const out = spawnSync('npm', ['pack', '--json', '--pack-destination', work, dir], { env: packEnv, encoding: 'utf8' });
  assert.strictEqual(out.status, 0, `npm pack ${dir}: ${out.error ? out.error.message : out.stderr}`);
  return path.join(work, JSON.parse(out.stdout)[0].filename);
}

function freshApp(name) {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
  return dir;
}

function statusIn(app) {
  const out = sh(process.execPath, ['-e', `
    const fastpath = require('http-fastpath');
    require('http');
    const s = fastpath.status();
    console.log(JSON.stringify({ active: s.active, native: s.native }));
  `], app);
  return JSON.parse(out.trim().split('\n').pop());
}

const mainTarball = pack(root);

test('cargo is hidden from the installs', () => {
  assert.notStrictEqual(spawnSync('sh', ['-c', 'command -v cargo'], { env }).status, 0);
  assert.strictEqual(spawnSync('sh', ['-c', 'command -v npm'], { env }).status, 0);
});

test('cargo is hidden where it shares one directory with node and npm', () => {
  // The shape of a Debian or Homebrew machine: one bin directory with all three.
  const sharedBin = fs.mkdtempSync(path.join(work, 'shared-bin-'));
  fs.symlinkSync(process.execPath, path.join(sharedBin, 'node'));
  fs.symlinkSync(fs.realpathSync(findOnPath('npm', process.env.PATH)), path.join(sharedBin, 'npm'));
  fs.writeFileSync(path.join(sharedBin, 'cargo'), '#!/bin/sh\necho "cargo 1.0.0 (a stand-in)"\n', { mode: 0o755 });
  const sharedPath = [sharedBin, '/bin'].join(path.delimiter);
  assert.strictEqual(spawnSync('cargo', ['--version'], { env: { PATH: sharedPath } }).status, 0, 'the stand-in cargo runs');
  const only = pathWithOnly({ node: null, npm: null, sh: null }, sharedPath);
  const onlyEnv = { ...env, PATH: only };
  try {
    assert.notStrictEqual(spawnSync('sh', ['-c', 'command -v cargo'], { env: onlyEnv }).status, 0);
    const tarball = pack(root, onlyEnv);
    assert.ok(fs.existsSync(tarball), tarball);
  } finally {
    fs.rmSync(only, { recursive: true, force: true });
  }
});

test('a program missing from PATH is named when the PATH is set up', () => {
  assert.throws(() => pathWithOnly({ node: null, 'no-such-program-fastpath': null }, path.dirname(process.execPath)),
    { message: /: no-such-program-fastpath not found on PATH=/ });
});

test('main + platform package: the native features load from the platform package, nothing is compiled', () => {
  const platformDir = path.join(work, 'platform-package');
  fs.cpSync(path.join(root, 'npm', platform), platformDir, { recursive: true });
  fs.copyFileSync(path.join(root, `http-fastpath.${platform}.node`), path.join(platformDir, `http-fastpath.${platform}.node`));
  const platformTarball = pack(platformDir);
  const app = freshApp('with-binary');
  const log = sh('npm', ['install', '--foreground-scripts', mainTarball, platformTarball], app);
  assert.doesNotMatch(log, /http-fastpath: /, 'the install step says nothing when a binary is present');
  const installed = path.join(app, 'node_modules', 'http-fastpath');
  assert.deepStrictEqual(fs.readdirSync(installed).filter((f) => f.endsWith('.node') || f === 'target'), []);
  const s = statusIn(app);
  assert.strictEqual(s.active, true);
  assert.strictEqual(s.native.loaded, true, s.native.reason);
  assert.strictEqual(s.native.source, 'platform package');
  assert.strictEqual(s.native.platform, `linux-${process.arch}-gnu`);
  assert.ok(s.native.file.includes(`node_modules${path.sep}http-fastpath-${platform}${path.sep}`), s.native.file);

  // What the addon is for, from the installed copy: a file by sendfile and a
  // small gzip job completed on the loop thread (HTTP_FASTPATH_ZLIB=1: whatever
  // the cores' load).
  fs.copyFileSync(path.join(__dirname, 'fixtures', 'installed-app-serves.js'), path.join(app, 'serves.js'));
  const r = spawnSync(process.execPath, ['serves.js'], { cwd: app, env: { ...env, HTTP_FASTPATH_ZLIB: '1' }, encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.strictEqual(r.stderr, '');
  const served = JSON.parse(r.stdout);
  assert.deepStrictEqual(served.native, { loaded: true, platform, source: 'platform package' });
  assert.strictEqual(served.fileIntact, true);
  assert.strictEqual(served.gzipIntact, true);
  assert.deepStrictEqual({ native: served.files.native, stock: served.files.stock }, { native: 1, stock: {} });
  assert.ok(served.zlibInline >= 1, `inline jobs: ${served.zlibInline}`);
  assert.deepStrictEqual(served.zlibPooled, {});
});

test('main package alone, no cargo: the install succeeds with one line, the JS fast paths are active', () => {
  const app = freshApp('without-binary');
  const log = sh('npm', ['install', '--foreground-scripts', mainTarball], app);
  const lines = log.split('\n').filter((l) => l.startsWith('http-fastpath: '));
  assert.deepStrictEqual(lines, [`http-fastpath: no prebuilt binary for ${platform} and no Rust toolchain to build one: native features off (message builder, header store, validators); the JS fast paths are on.`]);
  const s = statusIn(app);
  assert.strictEqual(s.active, true);
  assert.strictEqual(s.native.loaded, false);
  assert.match(s.native.reason, new RegExp(`^no native binary for ${platform}`));
});

// cargo builds for its own host: under emulation (npm run test:linux-arm64)
// that is x86_64 while this Node is arm64.
function cargoBuildsForThisNode() {
  const host = (spawnSync('rustc', ['-vV'], { encoding: 'utf8' }).stdout || '').match(/^host: (\S+)/m);
  const arch = { x64: 'x86_64', arm64: 'aarch64' }[process.arch];
  return host !== null && host[1].startsWith(`${arch}-`);
}

const sourceBuildSkip = Number(process.versions.node.split('.')[0]) !== 20 ? 'runs on Node 20 only'
  : !cargoBuildsForThisNode() ? `cargo here does not build for ${process.arch}` : false;

test('main package alone, with cargo: built from source at install, no build directory left', { skip: sourceBuildSkip }, () => {
  const app = freshApp('source-build');
  const tmpBefore = new Set(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('http-fastpath-build-')));
  const r = spawnSync('npm', ['install', '--foreground-scripts', mainTarball], { cwd: app, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', CARGO_TARGET_DIR: '' }, encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stderr);
  const log = r.stdout + r.stderr;
  assert.match(log, /http-fastpath: no prebuilt binary for \S+: building the addon from source with cargo/);
  assert.match(log, /Compiling http-fastpath v/, 'cargo\'s progress is shown');
  assert.match(log, new RegExp(`http-fastpath: built http-fastpath\\.${platform}\\.node`));
  const installed = path.join(app, 'node_modules', 'http-fastpath');
  assert.deepStrictEqual(fs.readdirSync(installed).filter((f) => f.endsWith('.node') || f === 'target'), [`http-fastpath.${platform}.node`]);
  const tmpAfter = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('http-fastpath-build-') && !tmpBefore.has(f));
  assert.deepStrictEqual(tmpAfter, [], 'the temporary build directory is removed');
  const s = statusIn(app);
  assert.strictEqual(s.native.loaded, true, s.native.reason);
  assert.strictEqual(s.native.source, 'local build');
});
