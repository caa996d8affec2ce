'use strict';
// Real apps on Express 5, Fastify 5, Koa 3 and Hono (@hono/node-server):
// every route is requested with stock and with patched Node (the same
// server, shim toggled between requests) and the raw bytes must be equal.
// Each framework also has to take the fast path for most responses.

process.env.HTTP_FASTPATH_STATS = '1';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { Readable } = require('stream');
const fastpath = require('..');
const { rawRequest } = require('./helpers/raw-request');
const { normaliseDates } = require('./helpers/differential');

const STATIC = path.join(__dirname, 'fixtures', 'static');
const FILE = path.join(STATIC, 'hello.txt');
const payload = { id: 42, name: 'widget', tags: ['a', 'b'], price: 9.99 };

const get = (p, extra = '') => `GET ${p} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
const ROUTES = [
  ['json', get('/json')],
  ['text', get('/text')],
  ['headers', get('/headers')],
  ['redirect', get('/redirect')],
  ['cookie', get('/cookie')],
  ['not found', get('/missing')],
  ['error', get('/error')],
  ['HEAD json', 'HEAD /json HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['stream', get('/stream')],
  ['file', get('/file')],
  ['gzip', get('/gzip', 'Accept-Encoding: gzip\r\n')],
  ['post echo', 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{"a":"b"}'],
  ['conditional', get('/json', 'If-None-Match: "x"\r\n')],
  ['keep-alive pair', get('/text') + get('/json')],
  ['HTTP/1.0', 'GET /text HTTP/1.0\r\n\r\n'],
];

const apps = {
  express() {
    const express = require('express');
    const compression = require('compression');
    const app = express();
    app.use(express.json());
    app.get('/json', (req, res) => res.json(payload));
    app.get('/text', (req, res) => res.send('hello from express'));
    app.get('/headers', (req, res) => { res.set({ 'X-One': '1', 'Cache-Control': 'no-store' }); res.append('Vary', 'Accept'); res.status(201).send('h'); });
    app.get('/redirect', (req, res) => res.redirect('/json'));
    app.get('/cookie', (req, res) => { res.cookie('a', '1', { path: '/', httpOnly: true }); res.cookie('b', '2'); res.send('c'); });
    app.get('/error', () => { throw new Error('boom'); });
    app.get('/stream', (req, res) => { res.type('text'); Readable.from(['a', 'b', 'c']).pipe(res); });
    app.get('/file', (req, res) => res.sendFile(FILE, { lastModified: false }));
    app.get('/gzip', compression({ threshold: 0 }), (req, res) => res.send('compress me '.repeat(20)));
    app.post('/echo', (req, res) => res.json(req.body));
    app.use((err, req, res, next) => res.status(500).json({ error: err.message })); // eslint-disable-line no-unused-vars
    return new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  },
  async fastify() {
    const fastify = require('fastify')({ logger: false });
    fastify.get('/json', async () => payload);
    fastify.get('/text', (req, reply) => reply.type('text/plain').send('hello from fastify'));
    fastify.get('/headers', (req, reply) => reply.code(201).headers({ 'X-One': '1', 'Cache-Control': 'no-store' }).send('h'));
    fastify.get('/redirect', (req, reply) => reply.redirect('/json'));
    fastify.get('/cookie', (req, reply) => reply.header('Set-Cookie', ['a=1; Path=/; HttpOnly', 'b=2']).send('c'));
    fastify.get('/error', async () => { throw new Error('boom'); });
    fastify.get('/stream', (req, reply) => reply.type('text/plain').send(Readable.from(['a', 'b', 'c'])));
    fastify.get('/file', (req, reply) => reply.type('text/plain').send(fs.createReadStream(FILE)));
    fastify.get('/gzip', (req, reply) => reply.send('no compression plugin'));
    fastify.post('/echo', async (req) => req.body);
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    return fastify.server;
  },
  koa() {
    const Koa = require('koa');
    const app = new Koa();
    app.silent = true;
    app.use(async (ctx, next) => {
      switch (ctx.path) {
        case '/json': ctx.body = payload; return;
        case '/text': ctx.body = 'hello from koa'; return;
        case '/headers': ctx.set({ 'X-One': '1', 'Cache-Control': 'no-store' }); ctx.status = 201; ctx.body = 'h'; return;
        case '/redirect': ctx.redirect('/json'); return;
        case '/cookie': ctx.cookies.set('a', '1', { httpOnly: true }); ctx.cookies.set('b', '2'); ctx.body = 'c'; return;
        case '/error': throw new Error('boom');
        case '/stream': ctx.type = 'text'; ctx.body = Readable.from(['a', 'b', 'c']); return;
        case '/file': ctx.type = 'text'; ctx.body = fs.createReadStream(FILE); return;
        case '/echo': { let b = ''; for await (const c of ctx.req) b += c; ctx.body = b; return; }
        default: return next();
      }
    });
    return new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  },
  async hono() {
    const { Hono } = require('hono');
    const { serve } = require('@hono/node-server');
    const app = new Hono();
    app.get('/json', (c) => c.json(payload));
    app.get('/text', (c) => c.text('hello from hono'));
    app.get('/headers', (c) => { c.header('X-One', '1'); c.header('Cache-Control', 'no-store'); return c.text('h', 201); });
    app.get('/redirect', (c) => c.redirect('/json'));
    app.get('/cookie', (c) => { c.header('Set-Cookie', 'a=1; Path=/', { append: true }); c.header('Set-Cookie', 'b=2', { append: true }); return c.text('c'); });
    app.get('/error', () => { throw new Error('boom'); });
    app.get('/stream', (c) => c.body(new ReadableStream({ start(ctrl) { for (const x of ['a', 'b', 'c']) ctrl.enqueue(new TextEncoder().encode(x)); ctrl.close(); } })));
    app.get('/file', (c) => c.text(fs.readFileSync(FILE, 'utf8')));
    app.post('/echo', async (c) => c.json(await c.req.json()));
    return new Promise((resolve) => { const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s)); });
  },
};

// What an app prints for a route (Hono's default error handler logs the
// error with console.error), captured so that it is asserted, not printed.
const EXPECTED_LOGS = { hono: { error: ['Error: boom'] } };

async function requestLogged(port, request) {
  const logged = [];
  const consoleError = console.error;
  console.error = (...args) => logged.push(args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : String(a))).join(' '));
  try {
    const bytes = normaliseDates((await rawRequest(port, request)).toString('latin1'));
    return { bytes, logged };
  } finally {
    console.error = consoleError;
  }
}

for (const [framework, start] of Object.entries(apps)) {
  test(`${framework}: every route is byte-identical and mostly on the fast path`, async (t) => {
    const server = await start();
    const port = server.address().port;
    fastpath.resetStats();
    try {
      for (const [label, request] of ROUTES) {
        fastpath.uninstall();
        const stock = await requestLogged(port, request);
        fastpath.install();
        const patched = await requestLogged(port, request);
        await t.test(label, () => {
          assert.ok(stock.bytes.startsWith('HTTP/1.'), `${label}: got a response (${JSON.stringify(stock.bytes.slice(0, 40))})`);
          assert.strictEqual(patched.bytes, stock.bytes, label);
          assert.deepStrictEqual(stock.logged, EXPECTED_LOGS[framework]?.[label] ?? [], `${label}: what the app logged`);
          assert.deepStrictEqual(patched.logged, stock.logged, `${label}: what the app logged`);
        });
      }
    } finally {
      server.close();
      if (server.closeAllConnections) server.closeAllConnections();
    }
    const stats = fastpath.status().stats;
    const fast = stats['end.fast'] || 0;
    const ends = Object.entries(stats).filter(([k]) => k.startsWith('end.')).reduce((a, [, v]) => a + v, 0);
    t.diagnostic(`${framework}: ${fast}/${ends} end() calls on the fast path; ${JSON.stringify(stats)}`);
    assert.ok(fast / ends >= 0.5, `${framework}: only ${fast}/${ends} responses took the fast path: ${JSON.stringify(stats)}`);
  });
}
