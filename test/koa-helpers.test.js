'use strict';
// Koa's context delegations with a function per name
// (lib/frameworks/koa-helpers.js). A stock copy of Koa, loaded with its
// dependencies while the package was uninstalled, and the patched copy serve
// the same requests through every delegated method and accessor: the bytes
// on the wire and every value and error the route saw must be the same, and
// each property of the context prototype must have the stock one's shape.

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');
const { spawnSync } = require('child_process');
const fastpath = require('..');
const { describeError, normaliseDates } = require('./helpers/differential');
const { loadFresh } = require('./helpers/fresh-modules');
const { rawRequest } = require('./helpers/raw-request');
const koaHelpers = require('../lib/frameworks/koa-helpers');

const KOA_PATCHED = require('koa');
fastpath.uninstall();
const KOA_STOCK = loadFresh(() => require('koa'));
fastpath.install();

const contextOf = (Koa) => Object.getPrototypeOf(new Koa().context);
// Every name koa/lib/context.js delegates, read from its source.
const CONTEXT_SOURCE = fs.readFileSync(require.resolve('koa/lib/context.js'), 'utf8');
const DELEGATED = [...CONTEXT_SOURCE.matchAll(/\.(?:method|access|getter|setter)\('(\w+)'\)/g)].map((m) => m[1]);
const generic = (fn) => fn !== undefined && /this\[target\]/.test(Function.prototype.toString.call(fn));

// What a route can see of a value: JSON where it can be, else its type.
function shown(value) {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'function';
  if (Buffer.isBuffer(value)) return `buffer ${value.toString('hex')}`;
  if (value instanceof URL) return `URL ${value.href}`;
  if (value !== null && typeof value === 'object' && typeof value.on === 'function') return 'emitter';
  try {
    return JSON.stringify(value);
  } catch {
    return typeof value;
  }
}

// Runs `fn` and reports its result or its error.
function outcome(fn) {
  try {
    return shown(fn());
  } catch (err) {
    return { error: describeError(err) };
  }
}

// One route per path, each going through delegated members; every value and
// error is logged.
const ROUTES = {
  '/headers': (ctx, log) => {
    log.push(outcome(() => ctx.set('X-One', '1')), outcome(() => ctx.set({ 'X-Two': '2', 'X-Three': ['a', 'b'] })));
    log.push(outcome(() => ctx.append('X-Three', 'c')), outcome(() => ctx.vary('Accept')), outcome(() => ctx.has('x-one')));
    log.push(outcome(() => ctx.remove('X-Two')), outcome(() => ctx.has('X-Two')), outcome(() => ctx.set('Bad', 'a\nb')));
    log.push(outcome(() => ctx.set(Symbol('s'), 'x')), outcome(() => ctx.headerSent), outcome(() => ctx.writable));
    ctx.body = 'headers';
  },
  '/body': (ctx, log) => {
    log.push(outcome(() => ctx.body), outcome(() => ctx.status), outcome(() => ctx.message), outcome(() => ctx.type));
    ctx.body = { a: 1, b: [true, null] };
    log.push(outcome(() => ctx.body), outcome(() => ctx.type), outcome(() => ctx.length), outcome(() => ctx.status));
    log.push(outcome(() => { ctx.status = 201; return ctx.status; }), outcome(() => { ctx.message = 'Made'; return ctx.message; }));
    log.push(outcome(() => { ctx.status = 99; }), outcome(() => { ctx.type = 'html'; return ctx.type; }));
    log.push(outcome(() => { ctx.lastModified = new Date(0); return ctx.lastModified.toISOString(); }));
    log.push(outcome(() => { ctx.etag = 'abc'; return ctx.etag; }), outcome(() => { ctx.length = 14; return ctx.length; }));
    ctx.body = '<p>changed</p>';
  },
  '/buffer': (ctx, log) => {
    ctx.body = Buffer.from('bytes');
    log.push(outcome(() => ctx.type), outcome(() => ctx.length));
  },
  '/empty': (ctx, log) => {
    ctx.body = null;
    log.push(outcome(() => ctx.status), outcome(() => ctx.body));
  },
  '/redirect': (ctx, log) => {
    log.push(outcome(() => ctx.redirect('/elsewhere?x=1')), outcome(() => ctx.status));
  },
  '/back': (ctx, log) => {
    log.push(outcome(() => ctx.back('/fallback')), outcome(() => ctx.status));
  },
  '/attachment': (ctx, log) => {
    log.push(outcome(() => ctx.attachment('report é.pdf')), outcome(() => ctx.type));
    ctx.body = 'pdf';
  },
  '/request': (ctx, log) => {
    for (const name of ['querystring', 'idempotent', 'search', 'method', 'query', 'path', 'url', 'origin', 'href', 'subdomains', 'protocol',
      'host', 'hostname', 'URL', 'header', 'headers', 'secure', 'stale', 'fresh', 'ips', 'ip']) log.push([name, outcome(() => ctx[name])]);
    log.push(['socket', outcome(() => ctx.socket === ctx.req.socket)], ['accept', outcome(() => typeof ctx.accept.types)]);
    log.push(outcome(() => ctx.accepts('json', 'html')), outcome(() => ctx.accepts()), outcome(() => ctx.acceptsEncodings('gzip', 'br')));
    log.push(outcome(() => ctx.acceptsCharsets('utf-8')), outcome(() => ctx.acceptsLanguages('fr', 'en')));
    log.push(outcome(() => ctx.get('X-Custom')), outcome(() => ctx.get('referer')), outcome(() => ctx.is('json')), outcome(() => ctx.is()));
    log.push(outcome(() => { ctx.querystring = 'a=2&b=3'; return ctx.query; }), outcome(() => { ctx.query = { z: '9' }; return ctx.url; }));
    log.push(outcome(() => { ctx.search = '?q=1'; return ctx.querystring; }), outcome(() => { ctx.path = '/moved'; return ctx.url; }));
    log.push(outcome(() => { ctx.url = '/u?k=v'; return [ctx.path, ctx.query]; }), outcome(() => { ctx.method = 'PUT'; return ctx.idempotent; }));
    ctx.body = { ok: true };
  },
  '/throws': (ctx) => {
    ctx.throw(418, 'short and stout');
  },
};

async function serve(Koa, patched) {
  if (patched) fastpath.install(); else fastpath.uninstall();
  const log = [];
  const app = new Koa();
  app.proxy = true;
  app.on('error', () => {});
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      log.push(['caught', describeError(err), err.status, err.expose]);
      throw err;
    }
  });
  app.use((ctx) => ROUTES[ctx.path]?.(ctx, log));
  const server = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  const head = 'Host: shop.example.com\r\nX-Forwarded-For: 10.0.0.1, 10.0.0.2\r\nX-Forwarded-Proto: https\r\nX-Custom: yes\r\n' +
    'Accept: application/json;q=0.9, text/html\r\nAccept-Encoding: gzip, br\r\nAccept-Language: en;q=0.5, fr\r\nReferer: /from\r\n';
  const replies = [];
  for (const p of Object.keys(ROUTES)) {
    const request = p === '/request' ?
      `POST /request?x=1&y=%C3%A9 HTTP/1.1\r\n${head}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}` :
      `GET ${p} HTTP/1.1\r\n${head}\r\n`;
    replies.push(normaliseDates((await rawRequest(server.address().port, request, { quietMs: 40 })).toString('latin1')));
  }
  server.close();
  server.closeAllConnections();
  return { replies, log };
}

test('Koa\'s delegations answer and throw as delegates\' own, through every delegated member', async () => {
  const stock = await serve(KOA_STOCK, false);
  const patched = await serve(KOA_PATCHED, true);
  assert.deepStrictEqual(patched.replies, stock.replies);
  assert.deepStrictEqual(patched.log, stock.log);
  assert.ok(stock.log.length > 60, `${stock.log.length} values logged`);
  assert.ok(stock.log.some((entry) => entry.error !== undefined), 'some delegated calls threw');
  // The stock copy ran delegates' functions, the patched one the package's.
  assert.ok(generic(contextOf(KOA_STOCK).set) && !generic(contextOf(KOA_PATCHED).set));
});

test('each delegated property has the stock shape: attributes, arity, name, getter and setter present', () => {
  const stockProto = contextOf(KOA_STOCK);
  const patchedProto = contextOf(KOA_PATCHED);
  assert.ok(DELEGATED.length >= 40, `${DELEGATED.length} names`);
  for (const name of DELEGATED) {
    const stock = Object.getOwnPropertyDescriptor(stockProto, name);
    const patched = Object.getOwnPropertyDescriptor(patchedProto, name);
    const shape = (d) => Object.fromEntries(Object.entries(d).map(([k, v]) => [k, typeof v === 'function' ? { name: v.name, length: v.length, prototype: Object.hasOwn(v, 'prototype') } : v]));
    assert.deepStrictEqual(shape(patched), shape(stock), name);
    for (const part of ['value', 'get', 'set']) if (patched[part] !== undefined) assert.ok(!generic(patched[part]), `${name}.${part} is the package's`);
  }
  assert.deepStrictEqual(fastpath.status().frameworks.koa, koaHelpers.snapshot());
  assert.strictEqual(koaHelpers.snapshot().delegations.specialised, DELEGATED.length);
});

test('uninstalled, the context prototype has delegates\' functions back; a member the app redefined stays the app\'s', () => {
  const proto = contextOf(KOA_PATCHED);
  const mine = function () { return 'mine'; };
  const before = Object.getOwnPropertyDescriptor(proto, 'vary');
  Object.defineProperty(proto, 'vary', { ...before, value: mine });
  try {
    fastpath.uninstall();
    try {
      for (const name of DELEGATED.filter((n) => n !== 'vary')) {
        const d = Object.getOwnPropertyDescriptor(proto, name);
        for (const part of ['value', 'get', 'set']) if (d[part] !== undefined) assert.ok(generic(d[part]), `${name}.${part} is delegates' own`);
      }
      assert.strictEqual(proto.vary, mine);
    } finally {
      fastpath.install();
    }
    assert.ok(!generic(proto.set));
    assert.strictEqual(proto.vary, mine);
  } finally {
    Object.defineProperty(proto, 'vary', before);
  }
});

test('a delegates whose source is not 1.0.0\'s is left as it is and counted', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fastpath-delegates-'));
  try {
    const own = path.join(dir, 'node_modules', 'delegates');
    fs.mkdirSync(own, { recursive: true });
    fs.writeFileSync(path.join(own, 'index.js'), fs.readFileSync(require.resolve('delegates'), 'utf8') + '\n// changed\n');
    const Delegator = require(path.join(own, 'index.js'));
    const before = koaHelpers.snapshot().delegations.unknownVersion;
    assert.strictEqual(koaHelpers.delegatesFor(Delegator, path.join(dir, 'node_modules', 'koa', 'lib', 'context.js')), Delegator);
    assert.strictEqual(koaHelpers.snapshot().delegations.unknownVersion, before + 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('Koa 3\'s contentType is mime-types\' answer, kept per string while the tables it came from are unchanged', () => {
  const responseFile = require.resolve('koa/lib/response.js');
  // The real module: a require() from koa/lib/response.js itself would get a stand-in.
  const mime = Module.createRequire(require.resolve('koa/lib/application.js'))('mime-types');
  const standIn = koaHelpers.mimeTypesFor(mime, responseFile);
  assert.strictEqual(Object.getPrototypeOf(standIn), mime);
  assert.strictEqual(fastpath.status().active, true);
  assert.strictEqual(standIn.lookup, mime.lookup);
  const inputs = ['json', 'html', 'text', 'bin', '.pdf', 'png', 'application/json', 'text/html; charset=iso-8859-1', 'xyz-unknown', '', 'text/plain', 'form', 'Text/HTML', 'JSON'];
  const answers = () => inputs.map((t) => [t, standIn.contentType(t), mime.contentType(t)]);
  for (let round = 0; round < 2; round++) for (const [t, got, want] of answers()) assert.strictEqual(got, want, t);
  const { json } = mime.types;
  const charset = mime.charset;
  try {
    mime.types.json = 'application/x-changed';
    for (const [t, got, want] of answers()) assert.strictEqual(got, want, `after the table changed: ${t}`);
    mime.charset = () => 'latin1';
    for (const [t, got, want] of answers()) assert.strictEqual(got, want, `after charset changed: ${t}`);
  } finally {
    mime.types.json = json;
    mime.charset = charset;
  }
  for (const [t, got, want] of answers()) assert.strictEqual(got, want, `restored: ${t}`);
  assert.ok(fastpath.status().frameworks.koa.contentType.adopted >= 1);
});

test('HTTP_FASTPATH_KOA=0 leaves Koa\'s delegations stock; HTTP_FASTPATH_EXPRESS=0 does not touch them', () => {
  const script = `
    const fastpath = require(${JSON.stringify(path.join(__dirname, '..'))});
    const Koa = require('koa');
    const set = Object.getPrototypeOf(new Koa().context).set;
    console.log(JSON.stringify({ generic: /this\\[target\\]/.test(set.toString()), koa: fastpath.status().frameworks.koa ?? null }));`;
  const run = (env) => {
    const r = spawnSync(process.execPath, ['-e', script], { cwd: path.join(__dirname, '..'), encoding: 'utf8', env: { ...process.env, ...env } });
    assert.strictEqual(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  assert.deepStrictEqual(run({ HTTP_FASTPATH_KOA: '0' }), { generic: true, koa: null });
  const withoutExpress = run({ HTTP_FASTPATH_EXPRESS: '0' });
  assert.strictEqual(withoutExpress.generic, false);
  assert.strictEqual(withoutExpress.koa.delegations.adopted, 1);
});
