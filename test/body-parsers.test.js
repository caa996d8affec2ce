'use strict';
// The body parsers' stand-ins (lib/frameworks/body-parsers.js): type-is as
// body-parser's type checks get it, iconv-lite as raw-body gets it. Express 4
// and 5 (body-parser 1.x and 2.x) and Koa (koa-bodyparser, co-body) serve the
// same POSTs from a stock copy, loaded with all its dependencies while the
// package was uninstalled, and from the patched copy; the bytes on the wire,
// req.body and every error (status, type, expose, message) must be the same.
// The UTF-8 decoder is also compared with iconv's own over random chunkings.

process.noDeprecation = true; // body-parser 1.x's deprecations, expected on both sides
const test = require('node:test');
const assert = require('node:assert');
const zlib = require('zlib');
const Module = require('module');
const path = require('path');
const fastpath = require('..');
const { describeError, normaliseDates } = require('./helpers/differential');
const { PATCHED, STOCK } = require('./helpers/express-copies');
const { loadFresh } = require('./helpers/fresh-modules');
const { rawRequest } = require('./helpers/raw-request');
const bodyParsers = require('../lib/frameworks/body-parsers');

// Koa copies: the patched one loaded now, the stock one afresh while uninstalled.
const koaParts = () => ({ Koa: require('koa'), bodyParser: require('koa-bodyparser') });
const KOA_PATCHED = koaParts();
fastpath.uninstall();
const KOA_STOCK = loadFresh(koaParts);
fastpath.install();

// One connection: its parts written a few ms apart; the replies as latin1 text.
const exchange = async (port, parts) => (await rawRequest(port, parts, { quietMs: 100 })).toString('latin1');

function post(path, body, headers = {}) {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const lines = Object.entries({ 'Content-Length': bytes.length, ...headers })
    .filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\n${lines}\r\n`, 'latin1'), bytes]);
}
const chunked = (path, pieces, headers = {}) => Buffer.concat([
  Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`),
  ...pieces.map((p) => Buffer.concat([Buffer.from(`${Buffer.byteLength(p).toString(16)}\r\n`), Buffer.from(p), Buffer.from('\r\n')])),
  Buffer.from('0\r\n\r\n'),
]);
// `whole` cut into pieces at the given byte offsets.
const cut = (whole, ...at) => [0, ...at].map((from, i) => whole.subarray(from, i < at.length ? at[i] : whole.length));

const JSON_TYPE = { 'Content-Type': 'application/json' };
const DOC = JSON.stringify({ user: 'u-1029', items: [{ sku: 'A-100', qty: 1 }, { sku: 'A-101', qty: 2 }], note: 'héllo ✓ 😀' });
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

// What a handler reports of req.body: its JSON and the type of each value.
const seen = (body) => (body === undefined ? 'undefined' : Buffer.isBuffer(body) ? `buffer ${body.toString('hex')}` : `${typeof body} ${JSON.stringify(body)}`);
const errorOf = (err) => ({ ...describeError(err), status: err.status, type: err.type, expose: err.expose, charset: err.charset, body: err.body });

// Each scenario: `mount(express, app, log)` adds the parsers and routes, and
// `exchanges` are the connections, each a list of writes.
const SCENARIOS = [
  {
    name: 'json: a small document, UTF-8 with and without a BOM, charset spellings',
    mount: (express, app) => app.use(express.json()),
    exchanges: [
      [post('/', DOC, JSON_TYPE)],
      [post('/', Buffer.concat([BOM, Buffer.from(DOC)]), JSON_TYPE)],
      [post('/', DOC, { 'Content-Type': 'application/json; charset=utf-8' })],
      [post('/', DOC, { 'Content-Type': 'application/json; charset=UTF8' })],
      [post('/', DOC, { 'Content-Type': 'Application/JSON ; charset="utf-8"' })],
      [post('/', DOC, { 'Content-Type': 'application/vnd.api+json' })],
      [post('/', DOC, { 'Content-Type': 'text/plain' })],
      [post('/', DOC, {})],
      [post('/', '', JSON_TYPE)],
      [post('/', '   ', JSON_TYPE)],
    ],
  },
  {
    name: 'json: invalid UTF-8, and characters split across packets',
    mount: (express, app) => app.use(express.json()),
    exchanges: [
      [post('/', Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xe2, 0x82]), Buffer.from('"}')]), JSON_TYPE)],
      cut(post('/', DOC, JSON_TYPE), 60, 100, 101, 102),
      (() => {
        const whole = post('/', Buffer.concat([BOM, Buffer.from(DOC)]), JSON_TYPE);
        const start = whole.indexOf(BOM);
        return cut(whole, start + 1, start + 2, start + 5);
      })(),
      (() => {
        const whole = post('/', DOC, JSON_TYPE);
        const emoji = whole.indexOf(Buffer.from('😀'));
        return cut(whole, emoji + 1, emoji + 3);
      })(),
      (() => {
        const whole = post('/', Buffer.concat([Buffer.from('{"a":"x'), Buffer.from([0xe2, 0x82]), Buffer.from('y"}')]), JSON_TYPE);
        const bad = whole.indexOf(Buffer.from([0xe2, 0x82]));
        return cut(whole, bad + 1, bad + 2);
      })(),
    ],
  },
  {
    name: 'json: errors (syntax, strict, limit, lying length, charset, encoding, aborted)',
    mount: (express, app) => {
      app.use('/small', express.json({ limit: 20 }));
      app.use(express.json());
    },
    exchanges: [
      [post('/', '{"a":', JSON_TYPE)],
      [post('/', '"just a string"', JSON_TYPE)],
      [post('/', ' \n true', JSON_TYPE)],
      [post('/small', DOC, JSON_TYPE)],
      [chunked('/small', ['{"a":', '"0123456789abcdefghij"}'], JSON_TYPE)],
      [post('/small', '{}', { ...JSON_TYPE, 'Content-Length': 100 })],
      [post('/', DOC, { 'Content-Type': 'application/json; charset=latin1' })],
      [post('/', DOC, { 'Content-Type': 'application/json; charset=bogus' })],
      [post('/', DOC, { ...JSON_TYPE, 'Content-Encoding': 'compress' })],
      [post('/', zlib.gzipSync(DOC), { ...JSON_TYPE, 'Content-Encoding': 'gzip' })],
      [post('/', zlib.deflateSync(DOC), { ...JSON_TYPE, 'Content-Encoding': 'deflate' })],
      [post('/', zlib.brotliCompressSync(DOC), { ...JSON_TYPE, 'Content-Encoding': 'br' })],
      [post('/', 'not gzip', { ...JSON_TYPE, 'Content-Encoding': 'gzip' })],
      [post('/', DOC, JSON_TYPE).subarray(0, -20), null],
      [post('/', DOC, { ...JSON_TYPE, 'Content-Type': 'application/json; charset' })],
    ],
  },
  {
    name: 'json: options (reviver, strict off, type as string, array and function, verify, inflate off)',
    mount: (express, app) => {
      app.use('/reviver', express.json({ reviver: (k, v) => (typeof v === 'number' ? v * 10 : v) }));
      app.use('/loose', express.json({ strict: false }));
      app.use('/typed', express.json({ type: 'text/*' }));
      app.use('/many', express.json({ type: ['application/x-doc', '+json'] }));
      app.use('/fn', express.json({ type: (req) => req.headers['x-parse'] === 'yes' }));
      app.use('/verify', express.json({ verify: (req, res, buf, encoding) => { if (buf.includes('forbidden')) throw new Error(`no ${encoding}`); } }));
      app.use('/flat', express.json({ inflate: false }));
    },
    exchanges: [
      [post('/reviver', DOC, JSON_TYPE)],
      [post('/loose', '"just a string"', JSON_TYPE)],
      [post('/typed', DOC, { 'Content-Type': 'text/plain' }), post('/typed', DOC, JSON_TYPE)],
      [post('/many', DOC, { 'Content-Type': 'application/x-doc' }), post('/many', DOC, { 'Content-Type': 'application/ld+json' })],
      [post('/fn', DOC, { 'X-Parse': 'yes' }), post('/fn', DOC, JSON_TYPE)],
      [post('/verify', DOC, JSON_TYPE), post('/verify', '{"forbidden":1}', JSON_TYPE)],
      [post('/flat', zlib.gzipSync(DOC), { ...JSON_TYPE, 'Content-Encoding': 'gzip' })],
    ],
  },
  {
    name: 'urlencoded, text and raw; pipelined POSTs on one connection; Expect: 100-continue',
    mount: (express, app) => {
      app.use(express.urlencoded({ extended: false }));
      app.use(express.text());
      app.use(express.raw({ type: 'application/octet-stream' }));
    },
    exchanges: [
      [Buffer.concat([
        post('/', 'a=1&b=h%C3%A9&c=%E2%9C%93', { 'Content-Type': 'application/x-www-form-urlencoded' }),
        post('/', 'plain ✓ text', { 'Content-Type': 'text/plain' }),
        post('/', Buffer.from([0, 1, 0xff]), { 'Content-Type': 'application/octet-stream' }),
        post('/', Buffer.concat([BOM, Buffer.from('bom text')]), { 'Content-Type': 'text/plain; charset=utf-8' }),
        post('/', 'latin ÿ', { 'Content-Type': 'text/plain; charset=iso-8859-1' }),
      ])],
      (() => {
        const whole = post('/', 'expect ✓', { 'Content-Type': 'text/plain', Expect: '100-continue' });
        const head = whole.indexOf('\r\n\r\n') + 4;
        return cut(whole, head);
      })(),
      [chunked('/', ['chunk ', 'ed ✓', ' text'], { 'Content-Type': 'text/plain' })],
    ],
  },
];

async function runExpress(scenario, parts, patched) {
  if (patched) fastpath.install(); else fastpath.uninstall();
  const log = [];
  const express = parts.express;
  const app = express();
  scenario.mount(express, app, log);
  app.use((req, res) => {
    log.push([req.url, seen(req.body)]);
    res.json({ body: req.body === undefined ? null : Buffer.isBuffer(req.body) ? req.body.toString('hex') : req.body });
  });
  app.use((err, req, res, next) => { // eslint-disable-line no-unused-vars
    log.push([req.url, 'error', errorOf(err)]);
    res.status(err.status || 500).json({ error: err.message, type: err.type });
  });
  const server = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  const replies = [];
  for (const parts of scenario.exchanges) replies.push(normaliseDates(await exchange(server.address().port, parts)));
  server.close();
  server.closeAllConnections();
  return { replies, log };
}

for (const name of ['express5', 'express4']) {
  for (const scenario of SCENARIOS) {
    test(`${name}: ${scenario.name}`, async () => {
      const stock = await runExpress(scenario, STOCK[name], false);
      const patched = await runExpress(scenario, PATCHED[name], true);
      assert.deepStrictEqual(patched.replies, stock.replies);
      assert.deepStrictEqual(patched.log, stock.log);
      assert.ok(stock.log.length >= scenario.exchanges.length, 'every exchange reached a handler');
    });
  }
}

test('the stand-ins are what the patched copies got, and they decoded by toString', () => {
  const status = fastpath.status().frameworks.bodyParsers;
  assert.ok(status.typeIs.adopted >= 2, JSON.stringify(status)); // body-parser 2.x utils.js, 1.x types
  assert.ok(status.rawBody.adopted >= 2, JSON.stringify(status)); // raw-body of Express 5 and of Express 4 / co-body
  assert.ok(status.decodedByToString > 0 && status.decodedByIconv > 0, JSON.stringify(status));
});

async function runKoa(parts, patched) {
  if (patched) fastpath.install(); else fastpath.uninstall();
  const log = [];
  const app = new parts.Koa();
  app.on('error', () => {});
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      log.push([ctx.url, 'error', errorOf(err)]);
      ctx.status = err.status || 500;
      ctx.body = { error: err.message };
    }
  });
  app.use(parts.bodyParser({ enableTypes: ['json', 'form', 'text'] }));
  app.use((ctx) => {
    log.push([ctx.url, seen(ctx.request.body), seen(ctx.request.rawBody)]);
    ctx.body = { body: ctx.request.body };
  });
  const server = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  const exchanges = [
    [post('/', DOC, JSON_TYPE)],
    [post('/', Buffer.concat([BOM, Buffer.from(DOC)]), JSON_TYPE)],
    cut(post('/', DOC, JSON_TYPE), 70, 110, 111),
    [post('/', 'a=1&b=h%C3%A9', { 'Content-Type': 'application/x-www-form-urlencoded' })],
    [post('/', Buffer.concat([Buffer.from('text '), Buffer.from([0xc3])]), { 'Content-Type': 'text/plain' })],
    [post('/', '{"a":', JSON_TYPE)],
    [post('/', DOC, { 'Content-Type': 'application/json; charset=bogus' })],
    [post('/', zlib.gzipSync(DOC), { ...JSON_TYPE, 'Content-Encoding': 'gzip' })],
  ];
  const replies = [];
  for (const parts of exchanges) replies.push(normaliseDates(await exchange(server.address().port, parts)));
  server.close();
  server.closeAllConnections();
  return { replies, log };
}

test('koa-bodyparser (co-body, raw-body): stock and patched copies answer the same', async () => {
  const stock = await runKoa(KOA_STOCK, false);
  const patched = await runKoa(KOA_PATCHED, true);
  assert.deepStrictEqual(patched.replies, stock.replies);
  assert.deepStrictEqual(patched.log, stock.log);
  assert.strictEqual(stock.log.length, 8);
});

test('the UTF-8 decoder gives what iconv gives, over random bytes and random chunkings', () => {
  const rawBody = require.resolve('raw-body');
  // By path: require('iconv-lite') from raw-body's directory would be the stand-in itself.
  const iconv = require(Module.createRequire(rawBody).resolve('iconv-lite'));
  const standIn = bodyParsers.iconvFor(iconv, rawBody);
  assert.notStrictEqual(standIn, iconv, 'raw-body is a known version');
  // Bytes drawn from pieces that make valid and invalid UTF-8 when glued.
  const pieces = [[0xef, 0xbb, 0xbf], [0x41], [0x7b, 0x22], [0xc3, 0xa9], [0xe2, 0x9c, 0x93], [0xf0, 0x9f, 0x98, 0x80],
    [0xc3], [0xa9], [0xe2, 0x82], [0xff], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x00], [0xc0, 0xaf]];
  let seed = 42;
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let round = 0; round < 3000; round++) {
    const bytes = [];
    for (let i = random(12); i >= 0; i--) bytes.push(...pieces[random(round % 3 === 0 ? 6 : pieces.length)]);
    const whole = Buffer.from(bytes);
    const cuts = [...new Set(Array.from({ length: random(4) }, () => random(whole.length + 1)))].sort((a, b) => a - b);
    const chunks = cut(whole, ...cuts);
    for (const encoding of ['utf-8', 'utf8']) {
      const real = iconv.getDecoder(encoding);
      const ours = standIn.getDecoder(encoding);
      const outReal = chunks.map((c) => real.write(c)).concat(real.end() || '');
      const outOurs = chunks.map((c) => ours.write(c)).concat(ours.end() || '');
      assert.strictEqual(outOurs.join(''), outReal.join(''), `${whole.toString('hex')} cut at ${cuts}`);
    }
  }
  // Any other encoding, or options, is iconv's own decoder.
  assert.strictEqual(standIn.getDecoder('latin1').constructor, iconv.getDecoder('latin1').constructor);
  assert.strictEqual(standIn.getDecoder('utf-8', { stripBOM: false }).constructor, iconv.getDecoder('utf-8', { stripBOM: false }).constructor);
  assert.throws(() => standIn.getDecoder('bogus'), (err) => err.message === describeThrow(() => iconv.getDecoder('bogus')));
  // Uninstalled, the stand-ins answer through the real modules; installed again, they are back.
  const ours = standIn.getDecoder('utf-8').constructor;
  assert.notStrictEqual(ours, iconv.getDecoder('utf-8').constructor);
  fastpath.uninstall();
  try {
    assert.strictEqual(standIn.getDecoder('utf-8').constructor, iconv.getDecoder('utf-8').constructor);
  } finally {
    fastpath.install();
  }
  assert.strictEqual(standIn.getDecoder('utf-8').constructor, ours);
});

function describeThrow(fn) {
  try {
    fn();
  } catch (err) {
    return err.message;
  }
  return null;
}

test('type-is answers as the real one for every type and Content-Type, cached or not', () => {
  const utils = require.resolve('body-parser/lib/utils.js');
  const typeis = require(Module.createRequire(utils).resolve('type-is'));
  const standIn = bodyParsers.typeIsFor(typeis);
  assert.notStrictEqual(standIn, typeis, 'type-is is a known version');
  const values = [undefined, '', 'application/json', 'APPLICATION/JSON; charset=utf-8', 'application/vnd.api+json', 'text/plain',
    'text/html;charset=utf-8', 'bogus', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', ' application/json '];
  const types = ['application/json', 'json', '+json', 'text/*', '*/*', 'urlencoded', 'multipart', 'bogus/', 'html'];
  for (let pass = 0; pass < 2; pass++) {
    for (const type of types) {
      for (const value of values) {
        for (const headers of [{ 'content-length': '3' }, { 'transfer-encoding': 'chunked' }, {}]) {
          const req = { headers: value === undefined ? headers : { ...headers, 'content-type': value } };
          assert.strictEqual(standIn(req, type), typeis(req, type), `${type} ${value} ${JSON.stringify(headers)}`);
        }
      }
    }
  }
  const req = { headers: { 'content-length': '1', 'content-type': 'text/html' } };
  assert.strictEqual(standIn(req, ['json', 'html']), typeis(req, ['json', 'html']));
  assert.strictEqual(standIn(req, 'json', 'html'), typeis(req, 'json', 'html'));
  assert.strictEqual(standIn.is, typeis.is);
  assert.strictEqual(standIn.hasBody, typeis.hasBody);
  assert.strictEqual(standIn.name, typeis.name);
  assert.strictEqual(standIn.length, typeis.length);
});

test('a type that type-is looks up in mime-types follows a change to that table', () => {
  const utils = require.resolve('body-parser/lib/utils.js');
  const typeisFile = Module.createRequire(utils).resolve('type-is');
  const typeis = require(typeisFile);
  const mimeTypes = require(Module.createRequire(typeisFile).resolve('mime-types'));
  const standIn = bodyParsers.typeIsFor(typeis);
  const req = { headers: { 'content-length': '2', 'content-type': 'application/json' } };
  const before = mimeTypes.types.json;
  assert.strictEqual(standIn(req, 'json'), 'json');
  assert.strictEqual(standIn(req, 'application/json'), 'application/json');
  try {
    mimeTypes.types.json = 'text/x-json';
    assert.strictEqual(typeis(req, 'json'), false, 'stock follows the table');
    assert.strictEqual(standIn(req, 'json'), false);
    assert.strictEqual(standIn(req, 'application/json'), 'application/json');
  } finally {
    mimeTypes.types.json = before;
  }
  assert.strictEqual(standIn(req, 'json'), 'json');
});

test('a later copy of iconv-lite is checked without losing the counts of bodies already decoded', () => {
  const before = bodyParsers.snapshot();
  assert.ok(before.decodedByToString > 0);
  // A copy of raw-body's iconv-lite not seen yet: loaded afresh, so the check runs for it.
  const rawBody = require.resolve('raw-body');
  const fresh = loadFresh(() => require(Module.createRequire(rawBody).resolve('iconv-lite')));
  assert.notStrictEqual(bodyParsers.iconvFor(fresh, rawBody), fresh);
  const after = bodyParsers.snapshot();
  assert.strictEqual(after.decodedByToString, before.decodedByToString);
  assert.strictEqual(after.decodedByIconv, before.decodedByIconv);
  assert.strictEqual(after.rawBody.adopted, before.rawBody.adopted + 1);
});

test('an unknown type-is or raw-body is left as it is, and counted', () => {
  const before = bodyParsers.snapshot();
  const fakeTypeis = Object.assign(function typeofrequest(req, types) { return types; }, { is() {}, hasBody() {} });
  assert.strictEqual(bodyParsers.typeIsFor(fakeTypeis), fakeTypeis);
  const iconv = require(Module.createRequire(require.resolve('raw-body')).resolve('iconv-lite'));
  assert.strictEqual(bodyParsers.iconvFor(iconv, path.join(__dirname, 'body-parsers.test.js')), iconv);
  const after = bodyParsers.snapshot();
  assert.strictEqual(after.typeIs.unknownVersion, before.typeIs.unknownVersion + 1);
  assert.strictEqual(after.rawBody.unknownVersion, before.rawBody.unknownVersion + 1);
});
