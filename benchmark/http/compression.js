'use strict';
// A compressed JSON response from an Express stack as deployed: helmet, cors,
// compression, morgan (to a file) and express.json() in front of a route
// answering `size` of JSON; the client asks for `enc` (br: compression picks
// brotli from 'gzip, deflate, br'). framework=fastify: @fastify/compress,
// registered (awaited) before the route; framework=koa: koa-compress;
// framework=floor: the floor, a bare http server answering each request with
// zlib.*Sync of the same JSON at the middlewares' settings (brotli quality 4,
// gzip level 6). Besides req/s and CPU per request, the
// result has the loop thread's CPU, minor faults and context switches per
// request, the resident memory during the load and the event loop's delay
// p99 (common/proc-probe.js); the 1 MiB body is the large job that must stay on
// the threadpool.
const common = require('../common/bench');
const probe = require('../common/proc-probe');
const fs = require('fs');
const os = require('os');
const path = require('path');

const bench = common.createBenchmark(main, {
  framework: ['express', 'fastify', 'koa', 'floor'], size: [2048, 20480, 1 << 20], enc: ['br', 'gzip'], c: [50],
});

function jsonOf(bytes) {
  const items = [];
  let text = '[]';
  for (let i = 0; text.length < bytes; i++) {
    items.push({ id: i, name: `item ${i}`, tags: ['alpha', 'beta'], price: (i * 37) % 1000 / 10, active: i % 3 !== 0 });
    text = JSON.stringify(items);
  }
  return items;
}

function load(server, enc, c, done) {
  const headers = { 'Accept-Encoding': enc === 'br' ? 'gzip, deflate, br' : 'gzip' };
  bench.http({ port: server.address().port, path: '/items', connections: c, headers, probe: probe.start }, done);
}

async function fastify({ size, enc, c }) {
  const app = require('fastify')();
  await app.register(require('@fastify/compress'));
  const body = jsonOf(size);
  app.get('/items', () => body);
  await app.listen({ port: 0, host: '127.0.0.1' });
  load(app.server, enc, c, () => app.close());
}

function koa({ size, enc, c }) {
  const Koa = require('koa');
  const app = new Koa();
  app.silent = true; // wrk's connections close mid-response when it stops
  app.use(require('koa-compress')());
  const body = jsonOf(size);
  app.use((ctx) => { if (ctx.path === '/items') ctx.body = body; });
  const server = app.listen(0, '127.0.0.1', () => load(server, enc, c, () => server.close()));
}

function floor({ size, enc, c }) {
  const zlib = require('zlib');
  const body = jsonOf(size);
  const compress = enc === 'br' ?
    (text) => zlib.brotliCompressSync(text, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }) :
    (text) => zlib.gzipSync(text);
  const server = require('http').createServer((req, res) => {
    const out = compress(JSON.stringify(body));
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Encoding': enc, 'Content-Length': out.length });
    res.end(out);
  });
  server.listen(0, '127.0.0.1', () => load(server, enc, c, () => server.close()));
}

function main(conf) {
  if (conf.framework === 'floor') return floor(conf);
  if (conf.framework === 'fastify') return fastify(conf);
  if (conf.framework === 'koa') return koa(conf);
  return express(conf);
}

function express({ size, enc, c }) {
  const express = require('express');
  const app = express();
  const log = fs.createWriteStream(path.join(os.tmpdir(), `http-fastpath-bench-morgan-${process.pid}.log`));
  app.use(require('helmet')());
  app.use(require('cors')());
  app.use(require('compression')());
  app.use(require('morgan')('combined', { stream: log }));
  app.use(express.json());
  const body = jsonOf(size);
  app.get('/items', (req, res) => res.json(body));
  // morgan may log a response after its connection closed, so the log is
  // never ended: it goes with the process.
  process.on('exit', () => fs.rmSync(log.path, { force: true }));
  const server = app.listen(0, '127.0.0.1', () => load(server, enc, c, () => server.close()));
}
