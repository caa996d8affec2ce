'use strict';
// Express 5's dispatch with fewer objects (lib/frameworks/express5-dispatch.js:
// app.handle and router 2.3.0's handle), against a stock copy of the same
// Express and router in the same process (test/helpers/express-copies.js):
// the bytes on the wire, and what handlers saw of req.url, baseUrl,
// originalUrl, params, req.next and the order they ran in, for every path
// through routing: mounts and trimmed prefixes, nested routers and apps,
// mergeParams, param callbacks, errors, 'route' and 'router', promises,
// thrown matches, long synchronous chains, OPTIONS, the final handler.

process.noDeprecation = true;
const test = require('node:test');
const assert = require('node:assert');
const dc = require('node:diagnostics_channel');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const fastpath = require('..');
const { PATCHED, STOCK, runOnce, get, withFakeExpress } = require('./helpers/express-copies');

const post = (p) => `POST ${p} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`;
const options = (p) => `OPTIONS ${p} HTTP/1.1\r\nHost: x\r\n\r\n`;

// What a handler sees of the routing state.
function state(req, label) {
  return [label, req.method, req.url, req.baseUrl, req.originalUrl, req.params === undefined ? 'undefined' : { ...req.params },
    Object.getPrototypeOf(req.params ?? {}) === null ? 'null-proto' : 'proto', typeof req.next, req.route?.path ?? null];
}

// finalhandler's error page shows the error's stack outside production:
// its frames name the dispatch's own functions (the one known difference,
// docs/known-differences.md). The page is compared without its frames.
function withoutStackFrames(bytes) {
  return bytes.replace(/(<pre>[^<]*)(<br>[^<]*|<br>)*<\/pre>/g, '$1</pre>').replace(/Content-Length: \d+(\r\n(?:(?!\r\n\r\n)[^])*?\r\n\r\n<!DOCTYPE)/g, 'Content-Length: n$1');
}

const SCENARIOS = [
  {
    name: 'plain routes: GET, HEAD on a GET route, a method not routed, POST, 404s',
    routes(app, { log }) {
      app.get('/', (req, res) => { log.push(state(req, 'root')); res.send('root'); });
      app.get('/a/b', (req, res) => { log.push(state(req, 'a/b')); res.json({ ok: 1 }); });
      app.post('/a/b', (req, res) => { log.push(state(req, 'post')); res.status(201).send('made'); });
      app.all('/all', (req, res) => res.send(req.method));
      app.post('/post-only/:p', (req, res) => res.send('post only'));
      app.use((req, res) => { log.push(state(req, 'fell through')); res.status(404).send('fell through'); });
    },
    requests: [get('/'), get('/a/b'), get('/a/b/'), get('/A/B'), `HEAD /a/b HTTP/1.1\r\nHost: x\r\n\r\n`, post('/a/b'),
      `HEAD /post-only/7 HTTP/1.1\r\nHost: x\r\n\r\n`, get('/post-only/8'),
      `PUT /a/b HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`, post('/all'), get('/nope'), get('/a/b?x=1&y=2'), get('//a/b'),
      get('http://x.example/a/b?q=1')],
  },
  {
    name: 'middleware mounted at paths: trimmed prefixes, slashes, restored urls',
    routes(app, { log }) {
      app.use((req, res, next) => { log.push(state(req, 'root mw')); next(); log.push(state(req, 'root mw after next')); });
      app.use('/api', (req, res, next) => { log.push(state(req, 'api mw')); next(); });
      app.use('/api/', (req, res, next) => { log.push(state(req, 'api/ mw')); next(); });
      app.use('/api/v1', (req, res, next) => { req.url = req.url.replace('/x', '/y'); log.push(state(req, 'v1 rewrote')); next(); });
      app.use(['/multi', '/other'], (req, res, next) => { log.push(state(req, 'multi')); next(); });
      app.use(/^\/re(\d+)/, (req, res, next) => { log.push(state(req, 're')); next(); });
      app.get('/api/v1/y', (req, res) => { log.push(state(req, 'y')); res.send('y'); });
      app.get('/api', (req, res) => { log.push(state(req, 'api route')); res.send('api'); });
      app.get('*splat', (req, res) => { log.push(state(req, 'splat')); res.send(req.params.splat.join('|')); });
    },
    requests: [get('/api'), get('/api/'), get('/api?q=1'), get('/api/v1/x'), get('/apix'), get('/multi/1'), get('/other'),
      get('/re42/z'), get('http://h.example/api/v1/x?z'), get('/api%2Fv1')],
  },
  {
    name: 'nested routers and a mounted app: baseUrl, params and next restored on the way out',
    routes(app, { express, log }) {
      const inner = express.Router();
      inner.use((req, res, next) => { log.push(state(req, 'inner mw')); next(); });
      inner.get('/item/:id', (req, res) => { log.push(state(req, 'inner item')); res.send(`item ${req.params.id}`); });
      inner.get('/pass', (req, res, next) => { log.push(state(req, 'inner pass')); next(); });
      inner.get('/leave', (req, res, next) => { log.push(state(req, 'inner leave')); next('router'); });
      const deeper = express.Router({ strict: true, caseSensitive: true });
      deeper.get('/Deep/', (req, res) => { log.push(state(req, 'deep')); res.send('deep'); });
      inner.use('/d', deeper);
      app.use('/in', (req, res, next) => {
        const outer = req.next;
        next();
        log.push(['same next after', req.next === outer]);
      });
      app.use('/in', inner);
      app.use('/in', (req, res, next) => { log.push(state(req, 'after inner')); res.send('after inner'); });
      const sub = express();
      sub.set('x-powered-by', false);
      sub.get('/hello', (req, res) => { log.push(state(req, 'sub hello')); res.send('sub'); });
      app.use('/sub', sub);
      app.use('/sub', (req, res) => { log.push(state(req, 'after sub')); res.send('after sub'); });
    },
    requests: [get('/in/item/7'), get('/in/pass'), get('/in/leave'), get('/in/d/Deep/'), get('/in/d/Deep'), get('/in/d/deep/'),
      get('/sub/hello'), get('/sub/nothing'), get('/in')],
  },
  {
    name: 'mergeParams, with names and with numbered (regexp) captures',
    routes(app, { express, log }) {
      const merged = express.Router({ mergeParams: true });
      merged.get('/posts/:pid', (req, res) => { log.push(state(req, 'merged')); res.json(req.params); });
      merged.get(/^\/n\/(\d+)$/, (req, res) => { log.push(state(req, 'numbered')); res.json(req.params); });
      app.use('/users/:uid', merged);
      app.use(/^\/r\/(\d+)/, merged);
      const separate = express.Router();
      separate.get('/posts/:pid', (req, res) => { log.push(state(req, 'separate')); res.json(req.params); });
      app.use('/teams/:tid', separate);
    },
    requests: [get('/users/u1/posts/p2'), get('/r/5/n/6'), get('/r/5/posts/9'), get('/teams/t/posts/p'), get('/users/%E2%9C%93/posts/%20')],
  },
  {
    name: 'param callbacks: once per value across layers, errors, route skips, odd names',
    routes(app, { express, log }) {
      app.param('id', (req, res, next, value, name) => { log.push(['param id', value, name]); req.params.id = `<${value}>`; next(); });
      app.param('bad', (req, res, next, value) => { log.push(['param bad', value]); next(value === 'err' ? new Error('bad param') : value === 'route' ? 'route' : undefined); });
      app.param('async', async (req, res, next, value) => { log.push(['param async', value]); await null; if (value === 'reject') throw new Error('rejected param'); next(); });
      app.get('/p/:id', (req, res, next) => { log.push(state(req, 'p first')); next(); });
      app.get('/p/:id', (req, res) => { log.push(state(req, 'p second')); res.send(req.params.id); });
      app.get('/b/:bad', (req, res) => res.send('b ok'));
      app.get('/b/:bad', (req, res) => res.send('b after route'));
      // a later layer, another value of the same key: a failed param is not called again
      app.use('/:bad', (err, req, res, next) => { log.push(['after bad param', err.message]); next(err); });
      app.get('/as/:async', (req, res) => res.send('async ok'));
      app.get('/c/:constructor/:toString', (req, res) => { log.push(state(req, 'odd names')); res.json(req.params); });
      const r = express.Router();
      r.param('id', (req, res, next, value) => { log.push(['router param', value]); next(); });
      r.get('/:id', (req, res) => res.send(`router ${req.params.id}`));
      app.use('/r', r);
    },
    requests: [get('/p/1'), get('/b/err'), get('/b/route'), get('/b/fine'), get('/as/ok'), get('/as/reject'), get('/c/a/b'), get('/r/9')],
  },
  {
    name: "errors: thrown, passed, rejected; 'route'; a path that cannot be decoded",
    routes(app, { log }) {
      app.get('/throw', () => { throw new Error('boom'); });
      app.get('/pass', (req, res, next) => next(new Error('passed')));
      app.get('/reject', async () => { throw new Error('rejected'); });
      app.get('/reject-empty', () => Promise.reject(null)); // eslint-disable-line prefer-promise-reject-errors
      app.get('/skip', (req, res, next) => next('route'), (req, res) => res.send('not reached'));
      app.get('/skip', (req, res) => { log.push(state(req, 'skipped to')); res.send('second route'); });
      app.get('/d/:v', (req, res) => res.send(req.params.v));
      app.use((err, req, res, next) => { log.push(['first error mw', err.message, err.status ?? null]); next(err); });
      app.get('/after-error', (req, res) => res.send('routes do not run with an error'));
      app.use((req, res, next) => { log.push(state(req, 'plain mw skipped with error')); next(); });
    },
    requests: [get('/throw'), get('/pass'), get('/reject'), get('/reject-empty'), get('/skip'), get('/d/%E0%A4%A'), get('/d/ok')],
  },
  {
    name: 'the final handler: 404, an error with a status, an error with headers, env production and test',
    errorHandler: false,
    routes(app) {
      app.set('env', 'test'); // logerror stays quiet in 'test', as stock's does
      app.get('/e', () => { const err = new Error('teapot'); err.status = 418; err.headers = { 'X-Why': 'tea' }; throw err; });
      app.get('/e500', () => { throw new Error('plain'); });
      app.get('/sent', (req, res, next) => { res.write('partial'); next(); });
      app.get('/prod', (req, res, next) => { req.app.set('env', 'production'); next(new Error('hidden')); });
    },
    requests: [get('/missing'), get('/e'), get('/e500'), post('/missing'), get('/prod'), get('/sent')],
  },
  {
    name: 'a router called as a function: its callback sees baseUrl, params and next put back',
    routes(app, { express, log }) {
      const r = express.Router();
      r.get('/x/:id', (req, res, next) => { log.push(state(req, 'r route')); req.baseUrl = '/changed-by-handler'; next(); });
      app.use((req, res, next) => {
        req.baseUrl = '/custom';
        req.params = { before: 'yes' };
        r(req, res, (err) => {
          log.push(state(req, 'callback'), ['next is the outer one', req.next === next, err ?? null]);
          res.send('called back');
        });
      });
    },
    requests: [get('/x/1'), get('/y')],
  },
  {
    name: 'more than 100 synchronous next() calls (the rest after a turn), and x-powered-by disabled',
    routes(app, { log }) {
      app.disable('x-powered-by');
      app.use((req, res, next) => { next(); log.push(['first middleware returned']); });
      for (let i = 0; i < 150; i++) app.use((req, res, next) => next());
      app.get('/long', (req, res) => { log.push(state(req, 'after 150')); res.send('long'); });
    },
    requests: [get('/long'), get('/none')],
  },
  {
    name: 'more than 100 next() calls each a tick later: the count starts again after each layer',
    routes(app, { log }) {
      app.use((req, res, next) => { setImmediate(() => log.push(['an immediate queued first'])); next(); });
      for (let i = 0; i < 120; i++) app.use((req, res, next) => process.nextTick(next));
      app.get('/ticks', (req, res) => { log.push(['handler']); res.send('ticks'); });
    },
    requests: [get('/ticks')],
  },
  {
    name: "the final handler of an app whose env is empty reads NODE_ENV when the request starts",
    errorHandler: false,
    routes(app) {
      app.set('env', '');
      process.env.NODE_ENV = 'production'; // restored after the test
      app.get('/flip', () => {
        process.env.NODE_ENV = 'development';
        const err = new Error('which env');
        err.status = 503;
        err.expose = false;
        throw err;
      });
    },
    requests: [get('/flip')],
  },
  {
    name: 'OPTIONS: the automatic Allow response and a route of its own',
    routes(app, { express }) {
      app.get('/o', (req, res) => res.send('get'));
      app.post('/o', (req, res) => res.send('post'));
      app.options('/own', (req, res) => res.send('own options'));
      const r = express.Router();
      r.put('/x', (req, res) => res.send('put'));
      app.use('/r', r);
    },
    requests: [options('/o'), options('/own'), options('/r/x'), options('/none')],
  },
];

// What finalhandler's logerror prints (outside env 'test'), captured: the
// first line of each message, and none of it on the test's output.
async function withConsoleErrors(run) {
  const consoleErrors = [];
  const original = console.error;
  console.error = (...args) => consoleErrors.push(args.map((a) => `${a instanceof Error ? 'an Error' : typeof a}: ${String(a).split('\n')[0]}`));
  try {
    const out = await run();
    await new Promise((resolve) => setImmediate(resolve)); // finalhandler defers onerror
    return { ...out, consoleErrors };
  } finally {
    console.error = original;
  }
}

for (const [name, scenario] of ['express5', 'express53'].flatMap((n) => SCENARIOS.map((s) => [n, s]))) {
  test(`Express 5 dispatch (${name}), same as stock: ${scenario.name}`, async (t) => {
    const nodeEnv = process.env.NODE_ENV;
    t.after(() => { if (nodeEnv === undefined) delete process.env.NODE_ENV; else process.env.NODE_ENV = nodeEnv; });
    const stock = await withConsoleErrors(() => runOnce(scenario, STOCK[name], false));
    const patched = await withConsoleErrors(() => runOnce(scenario, PATCHED[name], true));
    assert.deepStrictEqual(patched.consoleErrors, stock.consoleErrors);
    assert.deepStrictEqual(patched.log, stock.log);
    assert.strictEqual(withoutStackFrames(patched.bytes), withoutStackFrames(stock.bytes));
    assert.ok(stock.bytes.length > 0);
  });
}

test('Express 5 app.handle and router.handle are replaced on the patched copy only, and put back by uninstall()', () => {
  assert.notStrictEqual(PATCHED.express5.application.handle, STOCK.express5.application.handle);
  assert.notStrictEqual(PATCHED.express5.Router.prototype.handle, STOCK.express5.Router.prototype.handle);
  assert.match(String(STOCK.express5.Router.prototype.handle), /restore\(callback, req/);
  fastpath.uninstall();
  try {
    assert.match(String(PATCHED.express5.Router.prototype.handle), /restore\(callback, req/);
    assert.match(String(PATCHED.express5.application.handle), /var done = callback \|\| finalhandler/);
  } finally {
    fastpath.install();
  }
  assert.doesNotMatch(String(PATCHED.express5.Router.prototype.handle), /restore\(callback, req/);
  assert.doesNotMatch(String(PATCHED.express5.application.handle), /var done = callback \|\| finalhandler/);
  const copy = fastpath.status().frameworks.express.helpers.copies.find((c) => c.version.startsWith('5.'));
  assert.deepStrictEqual(copy.accelerated.filter((name) => name === 'router' || name === 'appHandle').sort(), ['appHandle', 'router']);
});

test('Express 5 dispatch: the final handler logs an error as stock does outside env test', async () => {
  const scenario = {
    name: 'logerror',
    errorHandler: false,
    routes(app) {
      app.set('env', 'development');
      app.get('/boom', () => { throw new TypeError('logged boom'); });
    },
    requests: [get('/boom')],
  };
  const capture = async (parts, patched) => {
    const { consoleErrors, bytes } = await withConsoleErrors(() => runOnce(scenario, parts, patched));
    return { consoleErrors, bytes: withoutStackFrames(bytes) };
  };
  // 5.2.1 prints err.stack (a string), 5.3.0 the error itself.
  for (const [name, printed] of [['express5', 'string: TypeError: logged boom'], ['express53', 'an Error: TypeError: logged boom']]) {
    const stock = await capture(STOCK[name], false);
    const patched = await capture(PATCHED[name], true);
    assert.deepStrictEqual(stock.consoleErrors, [[printed]], name);
    assert.deepStrictEqual(patched, stock, name);
  }
});

test('Express 5 dispatch: tracing subscribers see the same events', async () => {
  const scenario = {
    name: 'traced',
    routes(app, { express, log }) {
      app.param('id', (req, res, next) => next());
      app.use((req, res, next) => next());
      const r = express.Router();
      r.get('/:id', (req, res, next) => next(new Error('traced error')));
      app.use('/t', r);
      app.get('/ok', async (req, res) => { res.send('ok'); });
      app.use((err, req, res, next) => { log.push(['handled', err.message]); res.status(500).send('e'); }); // eslint-disable-line no-unused-vars
    },
    requests: [get('/t/1'), get('/ok')],
  };
  const channel = dc.tracingChannel('express.router.request');
  const traced = async (parts, patched) => {
    const events = [];
    const on = (kind) => (ctx) => events.push([kind, ctx.layer?.name ?? null, ctx.param ?? null, ctx.error?.message ?? null]);
    const handlers = { start: on('start'), end: on('end'), asyncStart: on('asyncStart'), asyncEnd: on('asyncEnd'), error: on('error') };
    channel.subscribe(handlers);
    try {
      const out = await runOnce(scenario, parts, patched);
      await new Promise((resolve) => setImmediate(resolve));
      return { events, ...out };
    } finally {
      channel.unsubscribe(handlers);
    }
  };
  const stock = await traced(STOCK.express5, false);
  const patched = await traced(PATCHED.express5, true);
  assert.ok(stock.events.length > 4, JSON.stringify(stock.events));
  assert.deepStrictEqual(patched, stock);
});

test('Express 5 dispatch: DEBUG=router prints the same lines', () => {
  const app = `
    const express = require('express');
    const app = express();
    const r = express.Router();
    r.get('/x', (req, res) => res.send('x'));
    app.use('/m', r);
    app.get('/', (req, res) => res.send('root'));
    const server = app.listen(0, '127.0.0.1', async () => {
      for (const p of ['/', '/m/x', '/none']) await fetch('http://127.0.0.1:' + server.address().port + p).then((r) => r.text());
      server.close();
    });`;
  const run = (preload) => spawnSync(process.execPath, [...(preload ? ['-r', path.join(__dirname, '..')] : []), '-e', app],
    { cwd: path.join(__dirname, '..'), env: { ...process.env, DEBUG: 'router,router:*', DEBUG_COLORS: 'no', NODE_OPTIONS: '' }, encoding: 'utf8' });
  const lines = (out) => out.stderr.split('\n').filter((l) => / router(:\w+)? /.test(l)).map((l) => l.replace(/^\S+ /, ''));
  const stock = run(false);
  const patched = run(true);
  assert.strictEqual(stock.status, 0, stock.stderr);
  assert.strictEqual(patched.status, 0, patched.stderr);
  assert.ok(lines(stock).some((l) => l.includes('dispatching GET /m/x')), stock.stderr);
  assert.deepStrictEqual(lines(patched), lines(stock));
});

test('an Express 5 app.handle or a router 2.3.0 index.js that is not the one read stays stock', () => {
  withFakeExpress('5.2.1', {
    'utils.js': 'exports.x = 1;\n',
    'application.js': "require('./utils');\nexports.Router = require('router');\nexports.handle = function handle(req, res, callback) { return 'own handle'; };\n",
    'express.js': "module.exports = require('./application');\n",
  }, (pkg) => {
    const routerDir = path.join(pkg, 'node_modules', 'router');
    fs.mkdirSync(routerDir, { recursive: true });
    fs.writeFileSync(path.join(routerDir, 'package.json'), JSON.stringify({ name: 'router', version: '2.3.0' }));
    fs.writeFileSync(path.join(routerDir, 'index.js'),
      "function Router() {}\nRouter.prototype = function () {};\nRouter.prototype.handle = function handle() { return 'own router'; };\nmodule.exports = Router;\n");
    const proto = require(path.join(pkg, 'lib', 'express.js'));
    assert.strictEqual(proto.handle(), 'own handle');
    assert.strictEqual(proto.Router.prototype.handle(), 'own router');
    const copy = fastpath.status().frameworks.express.helpers.copies.find((c) => c.dir === pkg);
    assert.deepStrictEqual(copy, { version: '5.2.1', dir: pkg, accelerated: [] });
  });
});
