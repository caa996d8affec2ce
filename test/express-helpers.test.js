'use strict';
// Express's response helpers computed once (lib/frameworks/express-helpers.js),
// Express 4 and 5, against a stock copy of the same Express in the same
// process: a second copy of each, with all its dependencies, loaded while the
// package was uninstalled (so its lib/utils.js and mime-types are Node's and
// npm's own). Each scenario runs its routes on the stock copy with the
// package uninstalled and on the patched copy installed, and compares the
// bytes on the wire, what the handlers read back (res.get, app settings) and
// every error thrown, by name, code and message.

process.noDeprecation = true; // Express 4's res.send(number) deprecation, expected on both sides
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const fastpath = require('..');
const { describeError } = require('./helpers/differential');
const { PATCHED, STOCK, runOnce, get, head, withFakeExpress } = require('./helpers/express-copies');
const helpers = require('../lib/frameworks/express-helpers');

// Records what res.get() returns for the headers these helpers set.
function seen(res) {
  return { type: res.get('Content-Type'), length: res.get('Content-Length'), etag: res.get('ETag') };
}

const BODIES = {
  string: 'hello world',
  unicode: 'héllo wörld ✓',
  empty: '',
  long: 'x'.repeat(1500),
  buffer: Buffer.from('bytes'),
  emptyBuffer: Buffer.alloc(0),
  object: { a: 1, b: [true, null] },
  number: 42,
  null: null,
};

function sendRoutes(app, { log }) {
  for (const [name, body] of Object.entries(BODIES)) {
    app.get(`/send/${name}`, (req, res) => {
      res.send(body);
      log.push([name, seen(res)]);
    });
  }
}
const SEND_REQUESTS = Object.keys(BODIES).map((name) => get(`/send/${name}`));

const TYPES = ['html', '.html', 'json', 'png', 'txt', 'unknownext', 'text/x-custom', 'application/json',
  'application/json; charset=latin1', 'TEXT/HTML', 'image/svg+xml', 'text/plain; format=flowed'];

const SCENARIOS = [
  {
    name: 'res.send of a string, Buffer, object, number, null',
    routes: sendRoutes,
    requests: SEND_REQUESTS,
  },
  {
    name: 'res.send with a Content-Type and charset already set',
    routes(app, { log }) {
      const preset = ['text/plain', 'text/plain; charset=latin1', 'application/vnd.api+json', 'application/json; charset=utf-8',
        'text/html; charset="UTF-8"; q=1', 'text/plain;charset=iso-8859-1', 'bad type'];
      preset.forEach((type, i) => {
        app.get(`/preset/${i}`, (req, res) => {
          res.setHeader('Content-Type', type);
          res.send(i % 2 ? 'text' : Buffer.from('buf'));
          log.push([type, seen(res)]);
        });
      });
    },
    requests: Array.from({ length: 7 }, (_, i) => get(`/preset/${i}`)),
  },
  {
    name: 'res.type with extensions and full types, then res.send',
    routes(app, { log, attempt }) {
      TYPES.forEach((type, i) => {
        app.get(`/type/${i}`, (req, res) => {
          attempt(`type ${type}`, () => res.type(type).get('Content-Type'));
          res.send('typed');
          log.push([type, seen(res)]);
        });
      });
    },
    requests: TYPES.map((_, i) => get(`/type/${i}`)),
  },
  {
    name: 'res.set with objects, arrays, a Content-Type array and invalid values',
    routes(app, { log, attempt }) {
      app.get('/set', (req, res) => {
        attempt('object', () => res.set({ 'X-A': 'a', 'Content-Type': 'text/plain', 'X-N': 5 }).get('Content-Type'));
        attempt('array', () => res.set('X-List', ['a', 'b']).get('X-List'));
        attempt('content-type array', () => res.set('Content-Type', ['text/html', 'text/plain']));
        attempt('content-type json', () => res.set('content-type', 'json').get('Content-Type'));
        attempt('invalid value', () => res.set('X-Bad', 'a\nb'));
        attempt('name not a string', () => res.set(5, 'v'));
        attempt('name null', () => res.set(null, 'v'));
        attempt('name a String object', () => res.set(new String('Content-Type'), 'text/html').get('Content-Type')); // eslint-disable-line no-new-wrappers
        attempt('content-type symbol', () => res.set('Content-Type', Symbol('s')).get('Content-Type'));
        attempt('content-type number', () => res.set('CONTENT-TYPE', 7).get('Content-Type'));
        attempt('content-type twice', () => [res.set('Content-Type', 'text/x-a').get('Content-Type'), res.set('Content-Type', 'text/x-a').get('Content-Type')]);
        attempt('three arguments', () => res.set('X-Three', 'v', 'extra').get('X-Three'));
        attempt('one argument', () => res.set('ab').get('0'));
        attempt('invalid name', () => res.set('X Bad', 'v'));
        attempt('undefined value', () => res.setHeader('X-U', undefined));
        attempt('get non-string', () => res.getHeader(5));
        attempt('get mixed case', () => [res.get('x-a'), res.get('X-LIST'), res.getHeader('CONTENT-TYPE')]);
        res.send({ ok: true });
        log.push(['after', seen(res)]);
      });
    },
    requests: [get('/set')],
  },
  {
    name: 'every etag setting, and an etag fn replaced',
    routes(app, { log }) {
      const settings = [false, true, 'weak', 'strong', (body, enc) => `"custom-${body.length}-${enc}"`];
      settings.forEach((setting, i) => {
        app.get(`/etag/${i}`, (req, res) => {
          req.app.set('etag', setting);
          res.send(i % 2 ? 'etag me' : Buffer.from('etag me'));
          log.push([String(setting), seen(res)]);
        });
      });
      app.get('/etag-fn', (req, res) => {
        req.app.set('etag fn', () => 'W/"replaced"');
        res.send('x');
        log.push(['etag fn', seen(res)]);
      });
      app.get('/etag-preset', (req, res) => {
        req.app.set('etag', 'weak');
        res.set('ETag', '"mine"');
        res.send('x');
        log.push(['preset', seen(res)]);
      });
    },
    requests: [...[0, 1, 2, 3, 4].map((i) => get(`/etag/${i}`)), get('/etag-fn'), get('/etag-preset')],
  },
  {
    name: 'HEAD, and 304 through If-None-Match (weak and strong)',
    routes(app, { log }) {
      app.get('/fresh', (req, res) => {
        res.send('fresh body');
        log.push(['fresh', res.statusCode, seen(res)]);
      });
      app.get('/strong', (req, res) => {
        req.app.set('etag', 'strong');
        res.json({ strong: true });
        log.push(['strong', res.statusCode, seen(res)]);
      });
    },
    requests: [head('/fresh'), get('/fresh'),
      get('/fresh', `If-None-Match: ${require('etag')(Buffer.from('fresh body'), { weak: true })}\r\n`),
      get('/strong', `If-None-Match: ${require('etag')(Buffer.from('{"strong":true}'))}\r\n`),
      get('/fresh', 'If-None-Match: "other"\r\n')],
  },
  {
    name: "res.set('Content-Type') after send's mime.charsets changes",
    routes(app, { log, attempt, sendMime }) {
      const values = ['application/json', 'text/html', 'image/png', 'text/plain; charset=latin1', 'application/javascript; x=1'];
      values.forEach((value, i) => {
        app.get(`/ct/${i}`, (req, res) => {
          attempt(value, () => res.set('Content-Type', value).get('Content-Type'));
          res.end('c');
        });
      });
      app.get('/lookup', (req, res) => {
        if (sendMime) sendMime.charsets.lookup = (type, fallback) => (type === 'image/png' ? 'X-PNG' : fallback);
        res.end('changed');
      });
      app.get('/charsets', (req, res) => {
        if (sendMime) sendMime.charsets = { lookup: () => 'KOI8-R' };
        log.push(['replaced', Boolean(sendMime)]);
        res.end('changed');
      });
    },
    // Last but one for each copy: it leaves send's mime changed.
    requests: [...[0, 1, 2, 3, 4, 0, 2].map((i) => get(`/ct/${i}`)), get('/lookup'), ...[0, 1, 2].map((i) => get(`/ct/${i}`)),
      get('/charsets'), ...[0, 1, 2, 3].map((i) => get(`/ct/${i}`))],
  },
  {
    name: "res.set('Content-Type') with more distinct values than any memo keeps",
    routes(app, { log }) {
      app.get('/many', (req, res) => {
        const got = [];
        for (let i = 0; i < helpers.MEMO_LIMIT + 40; i++) got.push(res.set('Content-Type', i % 2 ? `text/x-many-${i}` : `application/x-many-${i}`).get('Content-Type'));
        for (let i = 0; i < 20; i++) got.push(res.set('Content-Type', `text/x-many-${2 * i + 1}`).get('Content-Type'));
        log.push(['many', got]);
        res.end('m');
      });
    },
    requests: [get('/many'), get('/many')],
  },
  {
    name: "the type tables change after the first response (mime.define, mime-types' types and mime-db)",
    routes(app, { log, mimeTypes, mimeDb, sendMime }) {
      app.get('/t/:ext', (req, res) => {
        res.type(req.params.ext);
        res.send('t');
        log.push([req.params.ext, seen(res)]);
      });
      app.get('/j', (req, res) => {
        res.json([1]);
        log.push(['json', seen(res)]);
      });
      app.get('/change', (req, res) => {
        if (sendMime) sendMime.define({ 'text/x-redefined': ['html'], 'application/x-sent': ['json'] }, true); // Express 4's res.type
        mimeTypes.types.html = 'text/x-redefined';
        mimeTypes.types.png = 'image/x-png';
        mimeDb['application/json'] = { ...mimeDb['application/json'], charset: 'UTF-16' };
        mimeDb['text/x-redefined'] = { charset: 'ISO-8859-1' };
        res.end('changed');
      });
      app.get('/change-functions', (req, res) => {
        mimeTypes.lookup = () => 'text/from-lookup';
        mimeTypes.charset = () => 'X-CHARSET';
        res.end('changed');
      });
    },
    // Last for each copy: it leaves the copy's tables changed.
    requests: [get('/t/html'), get('/t/png'), get('/t/json'), get('/j'), get('/change'), get('/t/html'), get('/t/png'), get('/t/json'), get('/j'),
      get('/change-functions'), get('/t/html'), get('/t/json'), get('/j')],
  },
];

for (const name of ['express4', 'express5', 'express53']) {
  for (const scenario of SCENARIOS) {
    test(`${name}: ${scenario.name}`, async () => {
      const stock = await runOnce(scenario, STOCK[name], false);
      const patched = await runOnce(scenario, PATCHED[name], true);
      assert.ok(stock.bytes.startsWith('HTTP/1.1'), stock.bytes);
      assert.deepStrictEqual(patched.log, stock.log);
      assert.strictEqual(patched.bytes, stock.bytes);
    });
  }
}

test('the stock copies were loaded unpatched; the patched copies are accelerated and say so', () => {
  const { copies, stock } = fastpath.status().frameworks.express.helpers;
  assert.deepStrictEqual(copies.map((c) => [c.version, c.accelerated]),
    [[require('express4/package.json').version, ['setCharset', 'etag', 'set']], [require('express/package.json').version, ['setCharset', 'etag', 'contentType', 'router', 'appHandle']],
      ['5.3.0', ['setCharset', 'etag', 'contentType', 'router', 'appHandle']]]);
  assert.deepStrictEqual(stock, []);
  for (const name of ['express4', 'express5', 'express53']) {
    assert.notStrictEqual(STOCK[name].utils.setCharset, PATCHED[name].utils.setCharset);
    assert.strictEqual(STOCK[name].utils.setCharset.name, 'setCharset');
    assert.match(String(STOCK[name].utils.setCharset), /contentType\.parse/);
    assert.doesNotMatch(String(PATCHED[name].utils.setCharset), /contentType\.parse/);
  }
  assert.match(String(STOCK.express4.express.response.set), /field\.toLowerCase\(\) === 'content-type'/);
  assert.doesNotMatch(String(PATCHED.express4.express.response.set), /field\.toLowerCase\(\) === 'content-type'/);
  assert.strictEqual(PATCHED.express4.express.response.set, PATCHED.express4.express.response.header);
  assert.strictEqual(STOCK.express5.express.response.set, PATCHED.express5.express.response.set.constructor === Function ? STOCK.express5.express.response.set : null);
  assert.match(String(STOCK.express5.mimeTypes.contentType), /exports\.lookup/);
  assert.doesNotMatch(String(PATCHED.express5.mimeTypes.contentType), /exports\.lookup/);
});

test("the ETag generators give the etag package's tags for every kind of body", () => {
  const etag = require('etag');
  // Lone surrogates: the string path must encode them as Buffer.from does (EF BF BD).
  const bodies = ['', 'a', 'héllo ✓', '😀 a\ud800b \udc00 x\ud83d', 'x'.repeat(100000), Buffer.alloc(0), Buffer.from([0, 255, 1]), Buffer.alloc(70000, 7)];
  for (const weak of [false, true]) {
    const ours = helpers.makeETagGenerator(weak);
    for (const body of bodies) {
      for (const encoding of [undefined, 'utf8', 'utf-8', 'latin1', 'utf16le']) {
        const buf = Buffer.isBuffer(body) ? body : Buffer.from(body, encoding);
        assert.strictEqual(ours(body, encoding), etag(buf, { weak }), `${weak} ${encoding} ${String(body).slice(0, 10)}`);
      }
    }
    assert.throws(() => ours(5), (err) => { assert.deepStrictEqual(describeError(err), describeError(captureThrow(() => Buffer.from(5)))); return true; });
  }
});

function captureThrow(fn) {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

test('setCharset: past its bound, with bad input and with content-type replaced, the results are stock', () => {
  // The stock copy's own setCharset and the content-type module it calls.
  const { contentType, utils: { setCharset: original } } = STOCK.express5;
  const ours = helpers.makeSetCharset(original, contentType);
  const types = Array.from({ length: helpers.MEMO_LIMIT + 50 }, (_, i) => `application/x-t${i}; q=${i % 3}`);
  for (let round = 0; round < 2; round++) {
    for (const type of types) assert.strictEqual(ours(type, 'utf-8'), original(type, 'utf-8'));
  }
  for (const [type, charset] of [['text/plain', 'latin1'], ['', 'utf-8'], [undefined, 'utf-8'], ['text/plain', '']]) {
    assert.strictEqual(ours(type, charset), original(type, charset));
  }
  for (let i = 0; i < 2; i++) {
    assert.deepStrictEqual(describeError(captureThrow(() => ours('bad type', 'utf-8'))), describeError(captureThrow(() => original('bad type', 'utf-8'))));
  }
  assert.strictEqual(ours('text/html', 'utf-8'), 'text/html; charset=utf-8');
  const { format } = contentType;
  contentType.format = () => 'formatted/by-app';
  try {
    assert.strictEqual(ours('text/html', 'utf-8'), 'formatted/by-app');
  } finally {
    contentType.format = format;
  }
});

// A fake express package (package.json plus the given lib/ files) in a
// temporary directory, handed to `check` and removed afterwards.
test('an Express version it does not recognise stays stock, and says why', () => {
  withFakeExpress('4.16.4', {
    'utils.js': "exports.setCharset = function setCharset(type) { return type + ';old'; };\nexports.etag = exports.wetag = () => 'old';\n",
    'application.js': "module.exports = require('./utils');\n",
  }, (pkg) => {
    const utils = require(path.join(pkg, 'lib', 'application.js'));
    assert.strictEqual(utils.setCharset('text/html', 'utf-8'), 'text/html;old');
    assert.match(String(utils.setCharset), /;old/);
    const { stock } = fastpath.status().frameworks.express.helpers;
    assert.deepStrictEqual(stock, [{ version: '4.16.4', dir: pkg, reason: 'unrecognised version' }]);
  });
});

test("a copy the hooks cannot read stays stock, and the app's require() still works", () => {
  withFakeExpress('5.2.1', {
    'utils.js': 'exports.setCharset = function setCharset(type) { return type; };\n', // no content-type module to be found
    'application.js': "module.exports = require('./utils');\n",
  }, (pkg) => {
    const utils = require(path.join(pkg, 'lib', 'application.js'));
    assert.strictEqual(utils.setCharset('text/html', 'utf-8'), 'text/html');
    const { stock, copies } = fastpath.status().frameworks.express.helpers;
    assert.strictEqual(copies.find((c) => c.dir === pkg), undefined);
    const entry = stock.find((s) => s.dir === pkg);
    assert.strictEqual(entry.version, '5.2.1');
    assert.match(entry.reason, /^lib\/utils not read: Cannot find module 'content-type'/);
  });
});

test('an Express 4 whose res.set is not the one it read keeps its own', () => {
  withFakeExpress('4.21.0', {
    'utils.js': 'exports.x = 1;\n',
    'application.js': "module.exports = require('./utils');\n",
    'response.js': 'exports.set = exports.header = function header(field, val) { return [field, val, "own"]; };\n',
    'express.js': "require('./application'); module.exports = require('./response');\n",
  }, (pkg) => {
    const response = require(path.join(pkg, 'lib', 'express.js'));
    assert.deepStrictEqual(response.set('a', 'b'), ['a', 'b', 'own']);
    const copy = fastpath.status().frameworks.express.helpers.copies.find((c) => c.dir === pkg);
    assert.deepStrictEqual(copy, { version: '4.21.0', dir: pkg, accelerated: [] });
    const left = fastpath.status().frameworks.express.helpers.stock.filter((s) => s.dir === pkg);
    assert.deepStrictEqual(left, ['setCharset', 'etag', 'set'].map((helper) => ({ version: '4.21.0', dir: pkg, helper, reason: 'unknownSource' })));
  });
});

test('HTTP_FASTPATH_EXPRESS=0, HTTP_FASTPATH=0 and an Express loaded first leave the helpers stock', () => {
  const { execFileSync } = require('child_process');
  const script = `require(${JSON.stringify(path.join(__dirname, '..'))}); require('express'); require('http');
    const u = require(require('path').join(require.resolve('express'), '..', 'lib', 'utils.js'));
    const stockRouter = /restore\\(callback, req/.test(String(require('router').prototype.handle));
    console.log(JSON.stringify([/contentType\\.parse/.test(String(u.setCharset)) && stockRouter, require(${JSON.stringify(path.join(__dirname, '..'))}).status().frameworks.express?.helpers ?? null]));`;
  const run = (env) => JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: path.join(__dirname, '..'), env: { ...process.env, ...env }, encoding: 'utf8' }));
  assert.deepStrictEqual(run({ HTTP_FASTPATH_EXPRESS: '0' }), [true, null]);
  assert.deepStrictEqual(run({ HTTP_FASTPATH: '0' }), [true, null]);
  const [stockSetCharset, status] = run({});
  assert.strictEqual(stockSetCharset, false);
  assert.deepStrictEqual(status.copies[0].accelerated, ['setCharset', 'etag', 'contentType', 'router', 'appHandle']);
  // Express required before the package: stock, and said so.
  const before = JSON.parse(execFileSync(process.execPath, ['-e', `require('express'); ${script}`], { cwd: path.join(__dirname, '..'), encoding: 'utf8' }));
  assert.deepStrictEqual(before, [true, { copies: [], stock: [{ version: require('express/package.json').version, dir: path.dirname(require.resolve('express/package.json')), reason: 'loaded before http-fastpath' }] }]);
});

test('uninstall() stops the Express hooks even when another Module._load wrapper sits on top of them', () => {
  const Module = require('module');
  const { loadFresh } = require('./helpers/fresh-modules');
  const below = Module._load;
  const seen = [];
  Module._load = function wrapper(request) { seen.push(request); return Reflect.apply(below, this, arguments); };
  const before = fastpath.status().frameworks.express.helpers.copies.length;
  fastpath.uninstall();
  try {
    // Express's utils as its own lib/application.js loaded them, in the same fresh load.
    const { utils, express } = loadFresh(() => ({
      express: require('express'),
      utils: require(path.join(path.dirname(require.resolve('express/package.json')), 'lib', 'utils.js')),
    }));
    assert.match(String(utils.setCharset), /contentType\.parse/);
    assert.match(String(express.application.handle), /var done = callback \|\| finalhandler/);
    assert.ok(seen.includes('router'), 'the wrapper saw the loads');
  } finally {
    Module._load = below;
    fastpath.install();
  }
  assert.strictEqual(fastpath.status().frameworks.express.helpers.copies.length, before);
});

test('two copies of Express loaded from one directory are each recognised on their own', () => {
  const { loadFresh } = require('./helpers/fresh-modules');
  const before = fastpath.status().frameworks.express.helpers.copies.length;
  const fresh5 = loadFresh(() => require('express'));
  const fresh4 = loadFresh(() => require('express4'));
  const copies = fastpath.status().frameworks.express.helpers.copies;
  assert.strictEqual(copies.length, before + 2);
  assert.deepStrictEqual(copies.slice(before).map((c) => c.accelerated),
    [['setCharset', 'etag', 'contentType', 'router', 'appHandle'], ['setCharset', 'etag', 'set']]);
  assert.doesNotMatch(String(fresh5.application.handle), /var done = callback \|\| finalhandler/);
  assert.notStrictEqual(fresh5.application.handle, PATCHED.express5.express.application.handle);
  assert.doesNotMatch(String(fresh4.response.set), /field\.toLowerCase\(\) === 'content-type'/);
  assert.notStrictEqual(fresh4.response, PATCHED.express4.express.response);
});

test('two copies of Express 5 that share one router both list it, replaced once', () => {
  const { loadFresh } = require('./helpers/fresh-modules');
  const expressDir = path.dirname(require.resolve('express/package.json'));
  const routerFile = require.resolve('router', { paths: [expressDir] });
  const before = fastpath.status().frameworks.express.helpers.copies.length;
  // A new copy of Express's own files; router stays the cached one.
  const second = loadFresh(() => require('express'), expressDir + path.sep);
  assert.strictEqual(second.Router, require(routerFile));
  const copies = fastpath.status().frameworks.express.helpers.copies;
  assert.strictEqual(copies.length, before + 1);
  assert.ok(copies[before].accelerated.includes('router'));
  assert.doesNotMatch(String(second.Router.prototype.handle), /restore\(callback, req/);
});
