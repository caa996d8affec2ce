'use strict';
// Express's response helpers, route by route, for Express 5 and 4, with
// Fastify answering the same routes as a reference, and `floor`: a bare http
// handler writing the exact bytes Express 5 writes for each route (the stack
// route runs the same middlewares, chained by hand), what no framework can
// go below:
//   json:   res.set() of three headers, then res.json() of a small object
//   send:   res.send() of a short string (Content-Type from res.type('html'))
//   params: a route with two params and a query string, answered with
//           res.json() of what it read
//   stack:  the production-shaped stack (helmet, cors, compression with a
//           body below its threshold, morgan to a file, express.json()) and
//           a POST of a 1 KB JSON body answered with res.json()
// Run it with `framework=express5|express4|fastify|floor route=...`.
const common = require('../common/bench');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const querystring = require('querystring');

const bench = common.createBenchmark(main, {
  framework: ['express5', 'express4', 'fastify', 'floor'], route: ['json', 'send', 'params', 'stack'], c: [50],
});

const SMALL = { id: 42, name: 'widget', tags: ['a', 'b', 'c'], price: 9.99, stock: true };
const THREE = { 'Cache-Control': 'no-store', 'X-Request-Id': 'abc123', Vary: 'Accept-Encoding' };
// ~1 KB of JSON for the stack's POST.
const POST_BODY = JSON.stringify({ items: Array.from({ length: 12 }, (_, i) => ({ id: i, name: `item ${i}`, qty: i % 4, note: 'deliver to the side door' })) });

const PATHS = { json: '/', send: '/text', params: '/users/42/orders/7?expand=items&limit=10', stack: '/orders' };

function load(server, route, c, done) {
  const options = { port: server.address().port, path: PATHS[route], connections: c };
  if (route === 'stack') Object.assign(options, { method: 'POST', body: POST_BODY, headers: { 'Content-Type': 'application/json' } });
  bench.http(options, done);
}

function morganLog() {
  const log = fs.createWriteStream(path.join(os.tmpdir(), `http-fastpath-bench-morgan-${process.pid}.log`));
  // morgan may log a response after its connection closed: the log goes with the process.
  process.on('exit', () => fs.rmSync(log.path, { force: true }));
  return log;
}

function express({ framework, route, c }) {
  const express = require(framework === 'express4' ? 'express4' : 'express');
  const app = express();
  if (route === 'stack') {
    app.use(require('helmet')());
    app.use(require('cors')());
    app.use(require('compression')());
    app.use(require('morgan')('combined', { stream: morganLog() }));
    app.use(express.json());
    app.post('/orders', (req, res) => res.json({ received: req.body.items.length, ok: true }));
  }
  app.get('/', (req, res) => {
    res.set(THREE);
    res.json(SMALL);
  });
  app.get('/text', (req, res) => res.send('hello from express, a short text body'));
  app.get('/users/:user/orders/:order', (req, res) => {
    res.json({ user: req.params.user, order: req.params.order, expand: req.query.expand, limit: req.query.limit });
  });
  const server = app.listen(0, '127.0.0.1', () => load(server, route, c, () => server.close()));
}

async function fastify({ route, c }) {
  const app = require('fastify')();
  if (route === 'stack') {
    await app.register(require('@fastify/compress'));
    app.post('/orders', (req) => ({ received: req.body.items.length, ok: true }));
  }
  app.get('/', (req, reply) => {
    reply.headers(THREE);
    reply.send(SMALL);
  });
  app.get('/text', (req, reply) => { reply.type('text/html; charset=utf-8').send('hello from express, a short text body'); });
  app.get('/users/:user/orders/:order', (req) => ({ user: req.params.user, order: req.params.order, expand: req.query.expand, limit: req.query.limit }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  load(app.server, route, c, () => app.close());
}

// Express 5's headers and weak ETag for a body, from a bare handler.
function sendLikeExpress(res, type, text) {
  const body = Buffer.from(text);
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', body.length);
  res.setHeader('ETag', `W/"${body.length.toString(16)}-${crypto.hash('sha1', body, 'base64').slice(0, 27)}"`);
  res.end(body);
}

function floor({ route, c }) {
  const JSON_TYPE = 'application/json; charset=utf-8';
  const stack = route === 'stack' ? [require('helmet')(), require('cors')(), require('compression')(),
    require('morgan')('combined', { stream: morganLog() }), require('body-parser').json()] : [];
  const answer = (req, res) => {
    if (route === 'json') {
      for (const name in THREE) res.setHeader(name, THREE[name]);
      return sendLikeExpress(res, JSON_TYPE, JSON.stringify(SMALL));
    }
    if (route === 'send') return sendLikeExpress(res, 'text/html; charset=utf-8', 'hello from express, a short text body');
    if (route === 'params') {
      const [pathname, search] = req.url.split('?');
      const [, , user, , order] = pathname.split('/');
      const query = querystring.parse(search);
      return sendLikeExpress(res, JSON_TYPE, JSON.stringify({ user, order, expand: query.expand, limit: query.limit }));
    }
    sendLikeExpress(res, JSON_TYPE, JSON.stringify({ received: req.body.items.length, ok: true }));
  };
  const server = require('http').createServer((req, res) => {
    res.setHeader('X-Powered-By', 'Express');
    let i = 0;
    const next = () => (i < stack.length ? stack[i++](req, res, next) : answer(req, res));
    next();
  });
  server.listen(0, '127.0.0.1', () => load(server, route, c, () => server.close()));
}

function main(conf) {
  if (conf.framework === 'floor') return floor(conf);
  if (conf.framework === 'fastify') return fastify(conf);
  return express(conf);
}
