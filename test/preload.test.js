'use strict';
// A preload costs nothing until the app loads Node's HTTP stack, and every way
// an app can load it still ends up patched before its first response: CJS
// require (any spelling), ESM import (with -r or --import), CommonJS packages
// imported from ESM, process.getBuiltinModule, worker threads, and http
// loaded before the package.

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.join(__dirname, '..');

// An app folder where 'http-fastpath' and 'express' resolve as they do for a
// user (ESM resolution takes no NODE_PATH): links to this checkout.
const app = fs.mkdtempSync(path.join(os.tmpdir(), 'fastpath-preload-'));
fs.mkdirSync(path.join(app, 'node_modules'));
fs.symlinkSync(root, path.join(app, 'node_modules', 'http-fastpath'), 'dir');
fs.symlinkSync(path.join(root, 'node_modules', 'express'), path.join(app, 'node_modules', 'express'), 'dir');
const esmServer = path.join(app, 'esm-server.mjs');
fs.copyFileSync(path.join(__dirname, 'fixtures', 'preload', 'esm-server.mjs'), esmServer);
test.after(() => fs.rmSync(app, { recursive: true, force: true }));

function node(args, env = {}) {
  const r = spawnSync(process.execPath, args, {
    cwd: app, encoding: 'utf8', env: { ...process.env, HTTP_FASTPATH_STATS: '1', ...env },
  });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /Warning/);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

test('node -r http-fastpath in a process that never serves HTTP loads neither http nor the addon', () => {
  const out = node(['-r', root, '-e', `
    const loaded = process.moduleLoadList.filter((m) => /http|Binding http_parser/.test(m));
    const addons = Object.keys(require.cache).filter((f) => f.endsWith('.node'));
    const s = require(${JSON.stringify(root)}).status;
    console.log(JSON.stringify({ loaded, addons }));
  `]);
  assert.deepStrictEqual(out, { loaded: [], addons: [] });
});

for (const spelling of ['http', 'node:http', 'https', 'node:https', 'http2', '_http_server']) {
  test(`require('${spelling}') patches at once`, () => {
    const out = node(['-r', root, '-e', `
      const fastpath = require(${JSON.stringify(root)});
      const before = fastpath.status().waitingForHttp;
      require(${JSON.stringify(spelling)});
      const http = require('http');
      const s = fastpath.status();
      console.log(JSON.stringify({ before, active: s.active, by: s.activatedBy, ownEnd: Object.hasOwn(http.ServerResponse.prototype, 'end') }));
    `]);
    assert.deepStrictEqual(out, { before: true, active: true, by: 'require', ownEnd: true });
  });
}

test('http loaded before the package: patched when the package loads', () => {
  const out = node(['-e', `
    require('http');
    const s = require(${JSON.stringify(root)}).status();
    console.log(JSON.stringify({ active: s.active, by: s.activatedBy }));
  `]);
  assert.deepStrictEqual(out, { active: true, by: 'already loaded' });
});

for (const flag of ['-r', '--import']) {
  test(`ESM app importing node:http, preloaded with ${flag}: its first response is already patched`, () => {
    const out = node([flag, 'http-fastpath', esmServer], { LOAD: 'node:http' });
    assert.deepStrictEqual(out, { status: 'HTTP/1.1 200 OK', active: true, activatedBy: 'first request', fastEnds: 1, expressBound: 0 });
  });
}

test('ESM app importing Express (CommonJS): patched on its require of http, server bound', () => {
  const out = node(['--import', 'http-fastpath', esmServer], { LOAD: 'express' });
  assert.deepStrictEqual(out, { status: 'HTTP/1.1 200 OK', active: true, activatedBy: 'require', fastEnds: 1, expressBound: 1 });
});

test('process.getBuiltinModule(\'node:http\'): patched by the first request', { skip: typeof process.getBuiltinModule !== 'function' && 'no process.getBuiltinModule' }, () => {
  const out = node(['-r', root, esmServer], { LOAD: 'getBuiltinModule' });
  assert.deepStrictEqual(out, { status: 'HTTP/1.1 200 OK', active: true, activatedBy: 'first request', fastEnds: 1, expressBound: 0 });
});

test('a worker thread started with -r patches when it loads http', () => {
  const out = node(['-r', root, '-e', `
    const { Worker } = require('worker_threads');
    const body = ${JSON.stringify(`const f = require(${JSON.stringify(root)}); const w0 = f.status().waitingForHttp; require('http'); const s = f.status(); require('worker_threads').parentPort.postMessage({ w0, active: s.active, by: s.activatedBy });`)};
    const w = new Worker(body, { eval: true });
    w.once('message', (m) => console.log(JSON.stringify(m)));
  `]);
  assert.deepStrictEqual(out, { w0: true, active: true, by: 'require' });
});

test('uninstall() before http loads disarms the triggers', () => {
  const out = node(['-e', `
    const fastpath = require(${JSON.stringify(root)});
    fastpath.uninstall();
    const http = require('http');
    const s = fastpath.status();
    console.log(JSON.stringify({ active: s.active, waiting: s.waitingForHttp, ownEnd: Object.hasOwn(http.ServerResponse.prototype, 'end') }));
  `]);
  assert.deepStrictEqual(out, { active: false, waiting: false, ownEnd: false });
});

