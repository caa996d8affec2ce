'use strict';
// The Rust addon through its JS interface, against plain JS references:
// Buffer.from for latin1/utf8 encoding, a JS object for the header store,
// and Node's own validators for the byte tables.

const test = require('node:test');
const assert = require('node:assert');
const http = require('http');
const { native } = require('..');
const { buildHttpMessage, HeaderStore, isHttpToken, hasInvalidHeaderChar } = native;

function reference(first, flat, body) {
  let head = first;
  for (let i = 0; i < flat.length; i += 2) head += flat[i] + ': ' + flat[i + 1] + '\r\n';
  const parts = [Buffer.from(head + '\r\n', 'latin1')];
  if (typeof body === 'string') parts.push(Buffer.from(body, 'utf8'));
  else if (body) parts.push(Buffer.from(body));
  return Buffer.concat(parts);
}

// A small seeded generator, so failures reproduce.
function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}
function randomText(rand, maxLen, maxCode) {
  let out = '';
  const n = Math.floor(rand() * maxLen);
  for (let i = 0; i < n; i++) out += String.fromCharCode(Math.floor(rand() * maxCode));
  return out;
}

test('buildHttpMessage: exact bytes for fixed cases', () => {
  const cases = [
    ['HTTP/1.1 200 OK\r\n', ['Content-Type', 'text/plain', 'Content-Length', '5'], 'hello'],
    ['HTTP/1.1 204 No Content\r\n', [], undefined],
    ['GET / HTTP/1.1\r\n', ['Host', 'example.com'], Buffer.from([0, 1, 2, 255])],
    ['HTTP/1.1 200 OK\r\n', ['X-Latin1', 'é ÿ', 'X-Wide', 'Ā truncates'], 'é unicode ✓ 😀'],
    ['HTTP/1.1 200 OK\r\n', ['X-Long', 'v'.repeat(70000)], new Uint8Array([1, 2, 3])],
    ['HTTP/1.1 200 OK\r\n', [], ''],
  ];
  for (const [first, flat, body] of cases) {
    assert.deepStrictEqual(buildHttpMessage(first, flat, body), reference(first, flat, body));
  }
});

test('buildHttpMessage: random headers and bodies match the reference', () => {
  const rand = rng(7);
  for (let i = 0; i < 500; i++) {
    const flat = [];
    const count = Math.floor(rand() * 30);
    for (let h = 0; h < count; h++) flat.push(randomText(rand, 20, 0x180), randomText(rand, 300, 0x180));
    const body = rand() < 0.5 ? randomText(rand, 500, 0xffff) : Buffer.from(randomText(rand, 500, 256), 'latin1');
    assert.deepStrictEqual(buildHttpMessage('HTTP/1.1 200 OK\r\n', flat, body), reference('HTTP/1.1 200 OK\r\n', flat, body));
  }
});

test('buildHttpMessage: writes into a caller buffer and returns the length', () => {
  const out = Buffer.alloc(64, 0x2e);
  const n = buildHttpMessage('HTTP/1.1 200 OK\r\n', ['A', 'b'], 'xy', out);
  const expected = reference('HTTP/1.1 200 OK\r\n', ['A', 'b'], 'xy');
  assert.strictEqual(n, expected.length);
  assert.deepStrictEqual(out.subarray(0, n), expected);
  assert.strictEqual(out[n], 0x2e, 'nothing written past the message');
  assert.throws(() => buildHttpMessage('HTTP/1.1 200 OK\r\n', ['A', 'b'], 'xy', Buffer.alloc(4)), /too small/);
});

test('buildHttpMessage: bad arguments are JS errors, not crashes', () => {
  assert.throws(() => buildHttpMessage('HTTP/1.1 200 OK\r\n', ['odd']), /pairs/);
  assert.throws(() => buildHttpMessage('HTTP/1.1 200 OK\r\n', ['A', 5]), /string/);
  assert.throws(() => buildHttpMessage(5, []), /string/);
  assert.throws(() => buildHttpMessage('x', [], {}), /body/);
  assert.throws(() => buildHttpMessage('x', [], new Uint16Array(2)), /Uint8Array/);
});

test('HeaderStore behaves like a lowercase-keyed JS object store', () => {
  const rand = rng(11);
  const names = ['Content-Type', 'content-type', 'X-A', 'x-a', 'ETag', '3', '20', '007', 'Set-Cookie'];
  for (let round = 0; round < 200; round++) {
    const store = new HeaderStore();
    const model = { __proto__: null };
    for (let op = 0; op < 30; op++) {
      const name = names[Math.floor(rand() * names.length)];
      const key = name.toLowerCase();
      const r = rand();
      if (r < 0.6) {
        const value = randomText(rand, 12, 0x100);
        store.set(name, value);
        model[key] = [name, value];
      } else if (r < 0.8) {
        assert.strictEqual(store.remove(name), key in model);
        delete model[key];
      } else {
        assert.strictEqual(store.has(name), key in model);
        assert.strictEqual(store.get(name), key in model ? model[key][1] : null);
      }
    }
    assert.strictEqual(store.size, Object.keys(model).length);
    const flat = [];
    for (const key in model) flat.push(model[key][0], model[key][1]);
    assert.deepStrictEqual(store.render('HTTP/1.1 200 OK\r\n', 'b'), reference('HTTP/1.1 200 OK\r\n', flat, 'b'));
  }
});

test('isHttpToken agrees with http.validateHeaderName on every UTF-16 code unit', () => {
  const accepts = (s) => { try { http.validateHeaderName(s); return true; } catch { return false; } };
  for (let c = 0; c <= 0xffff; c++) {
    const s = 'a' + String.fromCharCode(c) + 'b';
    assert.strictEqual(isHttpToken(s), accepts(s), `code unit ${c.toString(16)}`);
  }
  assert.strictEqual(isHttpToken(''), accepts(''));
  const rand = rng(3);
  for (let i = 0; i < 2000; i++) {
    const s = randomText(rand, 16, 0x80);
    assert.strictEqual(isHttpToken(s), accepts(s), JSON.stringify(s));
  }
});

test('hasInvalidHeaderChar agrees with Node on every UTF-16 code unit (strict and lenient)', () => {
  const strict = (s) => { try { http.validateHeaderValue('x', s); return false; } catch { return true; } };
  const lenient = /[\x00\x0a\x0d]|[^\x00-\xff]/; // Node 24+ _http_common lenientHeaderCharRegex
  for (let c = 0; c <= 0xffff; c++) {
    const s = 'v' + String.fromCharCode(c);
    assert.strictEqual(hasInvalidHeaderChar(s), strict(s), `strict ${c.toString(16)}`);
    assert.strictEqual(hasInvalidHeaderChar(s, true), lenient.test(s), `lenient ${c.toString(16)}`);
  }
  assert.strictEqual(hasInvalidHeaderChar('😀'), true, 'surrogate pairs are above 0xff');
});

test('the shipped addon has no test-only exports', () => {
  assert.deepStrictEqual(Object.keys(native).filter((k) => k.startsWith('__')), []);
});

test('a Rust panic reaches JS as an Error and the process lives on (testing build)', () => {
  // In a child, so that Rust's panic message goes to a stderr this test reads.
  const addon = require('./helpers/test-hooks');
  assert.ok(require('fs').existsSync(addon), `${addon} is built by npm test (scripts/build-testing-addon.js)`);
  const script = `const t = require(${JSON.stringify(addon)});
    let caught = null;
    try { t.__panicForTesting(); } catch (err) { caught = err.message; }
    console.log(JSON.stringify({ caught, after: t.buildHttpMessage('A\\r\\n', []).toString('latin1') }));`;
  const r = require('child_process').spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, RUST_BACKTRACE: '0' } });
  assert.strictEqual(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.match(out.caught, /deliberate test panic/);
  assert.strictEqual(out.after, 'A\r\n\r\n');
  assert.match(r.stderr, /panicked at .*\n.*deliberate test panic/);
});

test('a worker that exits with a poll turn asked for exits (the turn gives up once JS cannot run)', () => {
  const { loadNative } = require('../lib/native/loader');
  const file = loadNative().file;
  const script = `const { Worker } = require('worker_threads');
    const w = new Worker(${JSON.stringify(`const addon = require(${JSON.stringify(file)});
      addon.setPollTurnCallback(() => 0);
      addon.schedulePollTurn();
      process.exit(5);`)}, { eval: true });
    w.on('exit', (code) => console.log(code));`;
  const r = require('child_process').spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 120_000 });
  assert.strictEqual(r.error, undefined, `the process ended (${r.error && r.error.code})`);
  assert.strictEqual(r.stdout, '5\n');
});
