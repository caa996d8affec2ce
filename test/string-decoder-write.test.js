'use strict';
// StringDecoder#write for a whole UTF-8 chunk (lib/request/string-decoder-write.js):
// the same strings, the same decoder state after every call and the same
// errors as Node's own write, over random byte strings (valid and invalid
// sequences, BOMs, characters split anywhere) cut at random points, with
// decoders written in turn; every input it does not take goes to Node's; and
// a request read with setEncoding('utf8') gets the same 'data' chunks.

const test = require('node:test');
const assert = require('node:assert');
const http = require('http');
const path = require('path');
const { spawnSync } = require('child_process');
const { StringDecoder } = require('string_decoder');
const fastpath = require('..');
const { makeWrite } = require('../lib/request/string-decoder-write');
const { describeError } = require('./helpers/differential');
const { rawRequest } = require('./helpers/raw-request');

fastpath.uninstall();
const nodeWrite = StringDecoder.prototype.write;
fastpath.install();
require('http');
// Node's write, counted: the writes the replacement handed to it.
let handedToNode = 0;
const fastWrite = makeWrite(function write() {
  handedToNode++;
  return Reflect.apply(nodeWrite, this, arguments);
});
const [kState] = Object.getOwnPropertySymbols(new StringDecoder('utf8'));

// What a caller can see of a decoder: its state bytes and the legacy getters.
const view = (d) => ({ state: Buffer.from(d[kState]).toString('hex'), lastNeed: d.lastNeed, lastTotal: d.lastTotal, lastChar: Buffer.from(d.lastChar).toString('hex') });

// Runs `fn` and reports its result or its error.
function outcome(fn) {
  try {
    return { value: fn() };
  } catch (err) {
    return { error: describeError(err) };
  }
}

// A deterministic PRNG, so a failure can be replayed.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  [0x41], [0x7b, 0x22], [0x0a], // ASCII
  [0xc3, 0xa9], [0xe2, 0x9c, 0x93], [0xf0, 0x9f, 0x98, 0x80], // é ✓ 😀
  [0xef, 0xbb, 0xbf], // BOM
  [0x80], [0xff], [0xc0, 0xaf], [0xe2, 0x9c], [0xf0, 0x9f], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], // invalid
];

function randomBytes(next, length) {
  const out = [];
  while (out.length < length) {
    const r = next();
    out.push(...PIECES[r < 0.6 ? Math.floor(next() * 3) : Math.floor(next() * PIECES.length)]);
  }
  return Buffer.from(out);
}

function randomCuts(next, bytes) {
  const parts = [];
  for (let at = 0; at < bytes.length;) {
    const len = next() < 0.1 ? 0 : 1 + Math.floor(next() * Math.min(40, bytes.length - at));
    parts.push(bytes.subarray(at, at + len));
    at += len;
  }
  return parts;
}

test('the same text and decoder state as Node\'s write, over random chunkings, decoders written in turn', () => {
  const next = rng(36);
  let writes = 0;
  handedToNode = 0;
  for (let round = 0; round < 400; round++) {
    // Three streams at once: each step writes the next chunk of one of them.
    const streams = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
      const bytes = randomBytes(next, Math.floor(next() * 120));
      return { parts: randomCuts(next, bytes), stock: new StringDecoder('utf8'), patched: new StringDecoder('utf8'), text: ['', ''] };
    });
    while (streams.some((s) => s.parts.length !== 0)) {
      const live = streams.filter((s) => s.parts.length !== 0);
      const s = live[Math.floor(next() * live.length)];
      const part = s.parts.shift();
      const stock = nodeWrite.call(s.stock, part);
      const patched = fastWrite.call(s.patched, part);
      writes++;
      assert.strictEqual(patched, stock, `round ${round}: ${part.toString('hex')}`);
      assert.deepStrictEqual(view(s.patched), view(s.stock), `round ${round}: state after ${part.toString('hex')}`);
      s.text[0] += stock;
      s.text[1] += patched;
    }
    for (const s of streams) {
      assert.strictEqual(s.patched.end(), s.stock.end());
      assert.deepStrictEqual(view(s.patched), view(s.stock));
    }
  }
  // Both kinds of write were exercised.
  assert.ok(writes - handedToNode > 500 && handedToNode > 1000, `${writes} writes, ${handedToNode} handed to Node's`);
});

test('inputs it does not take give Node\'s results and errors', () => {
  const utf8 = Buffer.from('héllo ✓');
  const cases = [
    ['a string', () => 'text', 'utf8'],
    ['a Uint8Array', () => new Uint8Array(utf8), 'utf8'],
    ['a DataView', () => new DataView(utf8.buffer, utf8.byteOffset, utf8.length), 'utf8'],
    ['a Uint16Array', () => new Uint16Array([0x6968, 0x2121]), 'utf8'],
    ['an empty Buffer', () => Buffer.alloc(0), 'utf8'],
    ['a chunk over 8 KiB', () => Buffer.from('é'.repeat(5000)), 'utf8'],
    ['a number', () => 42, 'utf8'],
    ['null', () => null, 'utf8'],
    ['undefined', () => undefined, 'utf8'],
    ['an object', () => ({ length: 3 }), 'utf8'],
    ...['latin1', 'utf16le', 'base64', 'hex', 'ascii'].map((enc) => [`a ${enc} decoder`, () => utf8, enc]),
  ];
  for (const [name, input, encoding] of cases) {
    const stock = new StringDecoder(encoding);
    const patched = new StringDecoder(encoding);
    assert.deepStrictEqual(outcome(() => fastWrite.call(patched, input())), outcome(() => nodeWrite.call(stock, input())), name);
    assert.deepStrictEqual(view(patched), view(stock), name);
    assert.deepStrictEqual(outcome(() => patched.end()), outcome(() => stock.end()), name);
  }
  for (const [name, self] of [['a plain object', {}], ['null', null], ['undefined', undefined], ['a number', 5]]) {
    for (const input of [utf8, 'text']) {
      assert.deepStrictEqual(outcome(() => fastWrite.call(self, input)), outcome(() => nodeWrite.call(self, input)), `this: ${name}`);
    }
  }
});

test('installed, StringDecoder.prototype.write is the fast one; uninstalled, Node\'s', () => {
  assert.ok(fastpath.status().patched.includes('StringDecoder.prototype.write'));
  assert.notStrictEqual(StringDecoder.prototype.write, nodeWrite);
  fastpath.uninstall();
  try {
    assert.strictEqual(StringDecoder.prototype.write, nodeWrite);
  } finally {
    fastpath.install();
  }
});

// A server that reads each request as text: the 'data' chunks and events it saw.
async function readAsText(parts) {
  const log = [];
  const server = http.createServer((req, res) => {
    req.setEncoding('utf8');
    req.on('data', (chunk) => log.push(['data', chunk]));
    req.on('end', () => {
      log.push(['end', req.complete, req.readableEnded]);
      res.end('ok');
    });
    req.on('close', () => log.push(['close']));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const reply = await rawRequest(server.address().port, parts, { quietMs: 60 });
  await new Promise((resolve) => server.close(resolve));
  return { log, reply: reply.toString('latin1').replace(/Date: .*\r\n/, '') };
}

test('a request read with setEncoding(\'utf8\') gets the same chunks and events as stock', async () => {
  const body = Buffer.from('{"note":"héllo ✓ 😀","n":1}');
  const head = (length) => Buffer.from(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n`);
  const splitChar = body.indexOf(0xf0) + 2; // inside the 4-byte character
  const invalid = Buffer.from([0x61, 0xff, 0xc3]);
  const exchanges = [
    [Buffer.concat([head(body.length), body])], // whole, with the head
    [head(body.length), body.subarray(0, splitChar), body.subarray(splitChar)], // a character split across packets
    [Buffer.concat([head(invalid.length + 1), invalid]), Buffer.from([0xa9])], // invalid, then a split é
  ];
  for (const parts of exchanges) {
    fastpath.uninstall();
    let stock;
    try {
      stock = await readAsText(parts);
    } finally {
      fastpath.install();
    }
    const patched = await readAsText(parts);
    assert.deepStrictEqual(patched, stock);
    assert.ok(stock.log.length >= 3, JSON.stringify(stock.log));
  }
});

test('HTTP_FASTPATH_STATS counts the chunks decoded here; HTTP_FASTPATH_DECODER=0 leaves the decoder stock', () => {
  const script = `
    const fastpath = require(${JSON.stringify(path.join(__dirname, '..'))});
    const http = require('http');
    const server = http.createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (c) => { text += c; });
      req.on('end', () => res.end(text));
    }).listen(0, '127.0.0.1', () => {
      const req = http.request({ port: server.address().port, method: 'POST' }, (res) => {
        let got = '';
        res.setEncoding('latin1');
        res.on('data', (c) => { got += c; });
        res.on('end', () => {
          const s = fastpath.status();
          console.log(JSON.stringify({ got, fast: s.stats['decoder.fast'] ?? 0, patched: s.patched.includes('StringDecoder.prototype.write') }));
          server.close();
        });
      });
      req.end('héllo');
    });`;
  const run = (env) => {
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, HTTP_FASTPATH_STATS: '1', ...env } });
    assert.strictEqual(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  // The server's request and the client's latin1 response each make a decoder; only the UTF-8 one is taken.
  assert.deepStrictEqual(run({}), { got: Buffer.from('héllo').toString('latin1'), fast: 1, patched: true });
  assert.deepStrictEqual(run({ HTTP_FASTPATH_DECODER: '0' }), { got: Buffer.from('héllo').toString('latin1'), fast: 0, patched: false });
});
