'use strict';
// install()/uninstall(), idempotence, the preload form, and the switches that
// must leave Node stock: HTTP_FASTPATH=0 (silently), a missing or broken
// addon and an unsupported Node major (one warning each).

const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const fs = require('fs');
const os = require('os');
const http = require('http');
const { spawnSync } = require('child_process');

const root = path.join(__dirname, '..');
const printStatus = path.join(__dirname, 'fixtures', 'print-status.js');

function describeMethods() {
  const targets = {
    OutgoingMessage: http.OutgoingMessage.prototype, ServerResponse: http.ServerResponse.prototype,
    ClientRequest: http.ClientRequest.prototype, Http2ServerResponse: require('http2').Http2ServerResponse.prototype,
    'net.Server': require('net').Server.prototype, 'fs.ReadStream': fs.ReadStream.prototype,
  };
  const out = {};
  for (const [name, proto] of Object.entries(targets)) {
    for (const key of Reflect.ownKeys(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, key);
      out[`${name}.${typeof key === 'symbol' ? `[${key.description}]` : key}`] = d;
    }
  }
  return out;
}

function run(args, env = {}) {
  const r = spawnSync(process.execPath, args, { cwd: root, env: { ...process.env, HTTP_FASTPATH_STATS: '', ...env }, encoding: 'utf8' });
  const warnings = r.stderr.split('\n').filter((l) => l.includes('HttpFastpathWarning'));
  return { status: r.status, out: r.stdout.trim() ? JSON.parse(r.stdout.trim().split('\n').pop()) : null, stderr: r.stderr, warnings };
}

test('uninstall() restores every original property exactly; install() is idempotent', () => {
  const fastpath = require('..');
  fastpath.uninstall();
  const stock = describeMethods();
  assert.strictEqual(fastpath.install(), true);
  assert.strictEqual(fastpath.install(), true);
  const patched = describeMethods();
  assert.notDeepStrictEqual(patched, stock);
  for (const name of fastpath.status().patched) {
    const [owner, method] = name.split('.prototype.');
    assert.notStrictEqual(patched[`${owner}.${method}`], undefined, name);
  }
  assert.strictEqual(fastpath.uninstall(), true);
  assert.strictEqual(fastpath.uninstall(), false);
  assert.deepStrictEqual(describeMethods(), stock);
  fastpath.install();
});

test('require() twice, even from a second copy of the package, patches once', () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'fastpath-copy-'));
  fs.cpSync(path.join(root, 'lib'), path.join(copy, 'lib'), { recursive: true });
  for (const f of fs.readdirSync(root).filter((f) => f.endsWith('.node'))) fs.copyFileSync(path.join(root, f), path.join(copy, f));
  const r = spawnSync(process.execPath, ['-e', `
    const http = require('http');
    const a = require(${JSON.stringify(root)});
    const end = http.ServerResponse.prototype.end;
    const b = require(${JSON.stringify(path.join(copy, 'lib', 'index.js'))});
    console.log(JSON.stringify({ same: end === http.ServerResponse.prototype.end, a: a.status().active, b: b.status().active }));
  `], { encoding: 'utf8' });
  assert.deepStrictEqual(JSON.parse(r.stdout), { same: true, a: true, b: true });
});

test('status() reports the active fast path', () => {
  const r = run([printStatus]);
  assert.strictEqual(r.status, 0, r.stderr);
  assert.strictEqual(r.out.active, true);
  assert.strictEqual(r.out.nativeLoaded, true);
  assert.ok(r.out.patched.includes('ServerResponse.prototype.end'));
  assert.ok(r.out.patched.includes('OutgoingMessage.prototype._storeHeader'));
  assert.strictEqual(r.warnings.length, 0);
});

test('node -r http-fastpath preloads and patches', () => {
  const r = spawnSync(process.execPath, ['-r', root, '-e', `
    const http = require('http');
    console.log(JSON.stringify({ own: Object.prototype.hasOwnProperty.call(http.ServerResponse.prototype, 'end') }));
  `], { encoding: 'utf8' });
  assert.deepStrictEqual(JSON.parse(r.stdout), { own: true });
});

test('HTTP_FASTPATH=0: no patching and no warning', () => {
  const r = run([printStatus], { HTTP_FASTPATH: '0' });
  assert.strictEqual(r.out.active, false);
  assert.strictEqual(r.out.endIsStock, true);
  assert.deepStrictEqual(r.out.patched, []);
  assert.strictEqual(r.out.disabledReason, 'HTTP_FASTPATH=0');
  assert.strictEqual(r.warnings.length, 0, r.stderr);
});

test('no native binary: the JS fast paths are active, status() says why native is off, no warning', () => {
  const r = run([printStatus], { HTTP_FASTPATH_ADDON: path.join(os.tmpdir(), 'does-not-exist.node') });
  assert.strictEqual(r.status, 0);
  assert.strictEqual(r.out.active, true);
  assert.strictEqual(r.out.endIsStock, false);
  assert.strictEqual(r.out.nativeLoaded, false);
  // This machine's platform (linux-arm64-gnu under arm64 Node).
  assert.ok(r.out.nativeReason.startsWith(`no native binary for ${require('../lib/native/loader').platformName()}`), r.out.nativeReason);
  assert.strictEqual(r.out.disabledReason, null);
  assert.strictEqual(r.warnings.length, 0, r.stderr);
});

test('broken addon file: the JS fast paths are active, exactly one warning', () => {
  const broken = path.join(os.tmpdir(), `broken-${process.pid}.node`);
  fs.writeFileSync(broken, 'not an ELF file');
  const r = run([printStatus], { HTTP_FASTPATH_ADDON: broken });
  assert.strictEqual(r.out.active, true);
  assert.strictEqual(r.out.endIsStock, false);
  assert.strictEqual(r.out.nativeLoaded, false);
  assert.match(r.out.nativeReason, /invalid ELF header|file too short/);
  assert.strictEqual(r.warnings.length, 1, r.stderr);
  fs.unlinkSync(broken);
});

test('unsupported Node major: stock Node and exactly one warning', () => {
  const r = run(['-r', path.join(__dirname, 'fixtures', 'fake-node18.js'), printStatus]);
  assert.strictEqual(r.out.active, false);
  assert.strictEqual(r.out.endIsStock, true);
  assert.match(r.out.disabledReason, /v18\.20\.0 is not supported/);
  assert.strictEqual(r.warnings.length, 1, r.stderr);
});

test('a stock server still answers when the shim is disabled', async () => {
  const r = spawnSync(process.execPath, ['-e', `
    const http = require('http');
    require(${JSON.stringify(root)});
    const s = http.createServer((req, res) => res.end('up')).listen(0, () => {
      http.get({ port: s.address().port }, (res) => { let b = ''; res.on('data', (d) => b += d); res.on('end', () => { console.log(JSON.stringify({ body: b })); s.close(); }); });
    });
  `], { env: { ...process.env, HTTP_FASTPATH: '0' }, encoding: 'utf8' });
  assert.deepStrictEqual(JSON.parse(r.stdout), { body: 'up' });
});

test('HTTP_FASTPATH_EXPRESS=0: everything but the Express binding', () => {
  const listenAndReport = (env) => spawnSync(process.execPath, ['-e', `
    const fastpath = require(${JSON.stringify(root)});
    const express = require('express');
    const server = express().listen(0, '127.0.0.1', () => {
      const s = fastpath.status();
      console.log(JSON.stringify({ active: s.active, listen: s.patched.includes('net.Server.prototype.listen'), express: s.frameworks.express ?? null }));
      server.close();
    });
  `], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
  // listen() stays patched for the file path (and HTTP_FASTPATH_MALLOC=1):
  // the addon is loaded, the allocator set, when the first server listens.
  const r = listenAndReport({ HTTP_FASTPATH_EXPRESS: '0' });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.deepStrictEqual(JSON.parse(r.stdout), { active: true, listen: true, express: null });
  const both = listenAndReport({ HTTP_FASTPATH_EXPRESS: '0', HTTP_FASTPATH_SENDFILE: '0', HTTP_FASTPATH_MALLOC: '' });
  assert.strictEqual(both.status, 0, both.stderr);
  assert.deepStrictEqual(JSON.parse(both.stdout), { active: true, listen: false, express: null });
});

// A file response through the native path when it can, counted in status().files.
const SERVE_FILE = `
  const fastpath = require(${JSON.stringify(root)});
  const http = require('http');
  const fs = require('fs');
  const file = ${JSON.stringify(__filename)};
  const server = http.createServer((req, res) => {
    res.setHeader('Content-Length', fs.statSync(file).size);
    fs.createReadStream(file).pipe(res);
  }).listen(0, '127.0.0.1', () => {
    http.get({ port: server.address().port, host: '127.0.0.1' }, (res) => {
      let body = '';
      res.setEncoding('latin1').on('data', (d) => { body += d; }).on('end', () => {
        const s = fastpath.status();
        console.log(JSON.stringify({ same: body === fs.readFileSync(file, 'latin1'), pipe: s.patched.includes('fs.ReadStream.prototype.pipe'), files: s.files ?? null, sendfile: s.native.features.sendfile }));
        server.close();
      });
    });
  });
`;

test('the native file path: on by default, off with HTTP_FASTPATH_SENDFILE=0, stock without a binary', () => {
  const on = spawnSync(process.execPath, ['-e', SERVE_FILE], { cwd: root, encoding: 'utf8' });
  assert.strictEqual(on.status, 0, on.stderr);
  assert.deepStrictEqual(JSON.parse(on.stdout), { same: true, pipe: true, files: { native: 1, waited: 0, handedBack: {}, stock: {} }, sendfile: true });
  const off = spawnSync(process.execPath, ['-e', SERVE_FILE], { cwd: root, env: { ...process.env, HTTP_FASTPATH_SENDFILE: '0' }, encoding: 'utf8' });
  assert.strictEqual(off.status, 0, off.stderr);
  assert.deepStrictEqual(JSON.parse(off.stdout), { same: true, pipe: false, files: null, sendfile: true });
  const missing = spawnSync(process.execPath, ['-e', SERVE_FILE], { cwd: root, env: { ...process.env, HTTP_FASTPATH_ADDON: path.join(os.tmpdir(), 'no-such-addon.node') }, encoding: 'utf8' });
  assert.strictEqual(missing.status, 0, missing.stderr);
  assert.deepStrictEqual(JSON.parse(missing.stdout), { same: true, pipe: true, files: { native: 0, waited: 0, handedBack: {}, stock: { noNative: 1 } }, sendfile: false });
  assert.strictEqual(missing.stderr.includes('HttpFastpathWarning'), false, missing.stderr);
});
