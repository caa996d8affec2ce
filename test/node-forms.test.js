'use strict';
// What the package reads from the running Node (lib/response/adapters.js)
// against what that Node does: the probes against a real server's socket
// writes and end() callbacks, a part whose stock source is not a verified
// one left stock with one warning, and a Node the package cannot read left
// wholly stock, the framework stand-ins included.

const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const http = require('http');
const net = require('net');
const { spawnSync } = require('child_process');
const fastpath = require('..');
const adapters = require('../lib/response/adapters');
const verifiedSources = require('../lib/response/verified-sources.json');

const root = path.join(__dirname, '..');
// The releases .ci/run tests (its VERSIONS and OLDER lists; in CI, every one).
const ciRun = require('fs').readFileSync(path.join(root, '.ci', 'run'), 'utf8');
const CI_RELEASES = [...ciRun.matchAll(/^(?:VERSIONS|OLDER)="([^"]*)"$/gm)].flatMap((m) => m[1].split(' '));
const inCi = process.env.CI === 'true' || CI_RELEASES.includes(process.versions.node);
const fixture = (name) => path.join(__dirname, 'fixtures', 'node-forms', name);

function run(args, env = {}) {
  const r = spawnSync(process.execPath, args, { cwd: root, env: { ...process.env, HTTP_FASTPATH_STATS: '', ...env }, encoding: 'utf8' });
  const warnings = r.stderr.split('\n').filter((l) => l.includes('HttpFastpathWarning'));
  const last = r.stdout.trim().split('\n').pop();
  return { status: r.status, out: last ? JSON.parse(last) : null, stderr: r.stderr, warnings };
}

// Stock Node, a real server: how many socket.write calls end(body, cb)
// makes, and in which order cb and a 'finish' listener added before it run.
function stockEnd(body) {
  fastpath.uninstall();
  return new Promise((resolve, reject) => {
    const server = http.createServer((req, res) => {
      const socket = res.socket;
      const write = socket.write;
      let writes = 0;
      socket.write = function () { writes++; return write.apply(this, arguments); };
      const order = [];
      res.on('finish', () => order.push('finish'));
      res.end(body, (...args) => order.push(args.length === 0 ? 'cb()' : `cb(${args[0]})`));
      socket.write = write;
      res.on('close', () => setImmediate(() => {
        server.close();
        resolve({ writes, order: order.join(',') });
      }));
    });
    server.listen(0, '127.0.0.1', () => {
      const c = net.connect(server.address().port, '127.0.0.1', () => c.end('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
      c.on('error', reject);
      c.resume();
    });
  }).finally(() => fastpath.install());
}

// Parts a probe leaves stock on this Node (20.2.0's end: docs/node-versions.md).
const stockHere = Object.entries(fastpath.status().parts).filter(([, p]) => !p.on).map(([name]) => name);
const unlessStock = (part) => (stockHere.includes(part) ? `the ${part} part stays stock on this Node` : false);

test("the probes read what stock Node's end() does on a real socket", { skip: unlessStock('end') }, async () => {
  const adapter = stockAdapter();
  const expectedOrder = { finishListener: 'finish,cb()', queued: 'cb(null),finish' }[adapter.endCallbacks];
  assert.ok(expectedOrder, `endCallbacks: ${adapter.endCallbacks}`);
  for (const [kind, body] of [['none', undefined], ['string', 'hello'], ['buffer', Buffer.from('hello')]]) {
    const seen = await stockEnd(body);
    assert.strictEqual(adapter.endWrites[kind], seen.writes, `socket writes for ${kind}`);
    assert.strictEqual(seen.order, expectedOrder, `end callback order for ${kind}`);
  }
});

test("the header store the probe reads is the one stock Node's setHeader makes", () => {
  const adapter = stockAdapter();
  fastpath.uninstall();
  try {
    const res = new http.ServerResponse({ method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} });
    res.setHeader('A', '1');
    const proto = Object.getPrototypeOf(res[adapter.kOutHeaders]);
    assert.strictEqual(adapter.headerStore, proto === null ? 'literal' : 'container');
  } finally {
    fastpath.install();
  }
});

test('on this Node every part is verified, and on unless a probe says why', () => {
  const s = fastpath.status();
  for (const [part, { on, reason }] of Object.entries(s.parts)) {
    assert.strictEqual(on, reason === null, part);
    if (!on) assert.doesNotMatch(reason, /^unverified source/, part);
  }
  assert.deepStrictEqual(Object.keys(s.parts), Object.keys(adapters.PARTS));
  fastpath.uninstall();
  try {
    for (const part of Object.keys(adapters.PARTS)) {
      assert.ok(Object.hasOwn(verifiedSources[part], adapters.partDigest(part)), `${part} digest listed as verified`);
    }
  } finally {
    fastpath.install();
  }
});

test('on the releases CI runs, every part is on', { skip: !inCi && `${process.versions.node} is not one of CI's releases (${CI_RELEASES.join(', ')})` }, () => {
  assert.deepStrictEqual(fastpath.status().parts, { head: { on: true, reason: null }, end: { on: true, reason: null }, headers: { on: true, reason: null } });
});

// makeAdapter reads Node's own prototypes, as install() does before patching.
function stockAdapter(table) {
  fastpath.uninstall();
  try {
    return adapters.makeAdapter(table);
  } finally {
    fastpath.install();
  }
}

test('a part whose digest is not in the verified table stays stock, with its reason', () => {
  const table = structuredClone(verifiedSources);
  fastpath.uninstall();
  delete table.end[adapters.partDigest('end')];
  fastpath.install();
  const adapter = stockAdapter(table);
  assert.strictEqual(adapter.parts.end.on, false);
  assert.match(adapter.parts.end.reason, /^unverified source \(OutgoingMessage#end, .*: sha1 [0-9a-f]{12}\)$/);
  assert.strictEqual(adapter.parts.head.on, true);
  assert.strictEqual(adapter.parts.headers.on, true);
  const patches = require('../lib/setup/patch').plan(adapter);
  assert.deepStrictEqual(patches.filter((p) => p.owner === 'ServerResponse').map((p) => p.name), []);
  assert.ok(patches.some((p) => p.name === '_storeHeader'));
});

test("where Node's value validator rejects a character the fast paths accept, head and headers stay stock", () => {
  const common = require('_http_common');
  const original = common._checkInvalidHeaderChar;
  common._checkInvalidHeaderChar = (value) => value === 'a' || original(value); // a stricter Node
  let adapter;
  try {
    adapter = stockAdapter();
  } finally {
    common._checkInvalidHeaderChar = original;
  }
  const reason = "Node's header validators reject characters the fast paths accept";
  assert.deepStrictEqual([adapter.parts.head.on, adapter.parts.head.reason], [false, reason]);
  assert.deepStrictEqual([adapter.parts.headers.on, adapter.parts.headers.reason], [false, reason]);
  // The end part does not depend on the validators: as on this Node (off only on 20.2.0).
  assert.deepStrictEqual(adapter.parts.end.on, fastpath.status().parts.end.on);
});

// An APM agent wraps one of Node's methods before the package loads: the
// part that depends on it stays stock, the others stay on, bytes as stock's.
for (const [wrap, part, calls, fast] of [
  ['OutgoingMessage#end', 'end', 2, 'storeHeader.fast'],
  ['OutgoingMessage#_storeHeader', 'head', 2, 'end.fast'],
  // The one-write end() stays on; the head is Node's, through the wrapper.
  ['ServerResponse#writeHead', 'head', 2, 'end.fast'],
]) {
  const other = fast.startsWith('end.') ? 'end' : 'head';
  test(`${wrap} wrapped before the package loads (an APM): ${part} stays stock, one warning, same bytes`, { skip: unlessStock(other) }, () => {
    const r = run(['-r', fixture('wrap.js'), fixture('serve-and-report.js')], { WRAP: wrap, HTTP_FASTPATH_STATS: '1' });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.strictEqual(r.warnings.length, 1, r.stderr);
    assert.match(r.warnings[0], new RegExp(`the response ${part} part stays stock: unverified source \\([^)]*${wrap}[,:]`));
    assert.strictEqual(r.out.active, true);
    const on = { head: true, end: true, headers: true, [part]: false };
    assert.deepStrictEqual(Object.fromEntries(Object.entries(r.out.parts).map(([k, v]) => [k, v.on])), on);
    assert.strictEqual(r.out.wrapperCalls, calls, 'the wrapper saw the two responses and nothing else');
    assert.strictEqual(r.out.wrapperInPlace, true);
    assert.ok(r.out.stats[fast] > 0, `the other part ran: ${JSON.stringify(r.out.stats)}`);
    assert.strictEqual(r.out.patched.bytes, r.out.stock.bytes);
  });
}

test("a Node whose internals the package cannot read stays wholly stock: no part, no stand-in, one warning", () => {
  const r = run(['-r', fixture('hide-out-headers.js'), '-r', root, fixture('express-app-status.js')]);
  assert.strictEqual(r.status, 0, r.stderr);
  assert.strictEqual(r.warnings.length, 1, r.stderr);
  assert.match(r.warnings[0], /http-fastpath disabled: Node v\S+: internal symbol kOutHeaders not found; running stock Node/);
  assert.strictEqual(r.out.active, false);
  assert.deepStrictEqual(r.out.patched, []);
  assert.strictEqual(r.out.bodyParsers, undefined, 'no body-parser stand-in handed out');
  assert.strictEqual(r.out.express, undefined);
  assert.strictEqual(r.out.koa, undefined);
  assert.strictEqual(r.out.body, '{"ok":true}');
});
