'use strict';
// The frameworks' JSON route (benchmark/fixtures/json-route.js) over HTTP/2:
// Fastify 5 with `http2: true` and Koa 3 on http2.createServer (both answer
// through the compat API), h2c or TLS, h2load on the load core.
const common = require('../common/bench');
const route = require('../fixtures/json-route');
const { tlsOptions } = require('../fixtures/tls');

const bench = common.createBenchmark(main, { framework: ['fastify', 'koa'], tls: [0, 1], m: [1, 10], c: [50] });

function measure(server, { tls, m, c }, close) {
  bench.http({ port: server.address().port, path: route.path, connections: c, client: 'h2load', streams: m, tls: Boolean(tls) }, () => {
    close();
    process.exit(0);
  });
}

function main(conf) {
  if (conf.framework === 'fastify') {
    const fastify = require('fastify')({ logger: false, http2: true, ...(conf.tls ? { https: tlsOptions() } : {}) });
    fastify.get(route.path, (request, reply) => {
      for (const [name, value] of route.headers) reply.header(name, value);
      reply.send(route.payload);
    });
    fastify.listen({ port: 0, host: '127.0.0.1' }).then(() => measure(fastify.server, conf, () => fastify.close()));
    return;
  }
  const http2 = require('http2');
  const Koa = require('koa');
  const app = new Koa();
  app.use((ctx, next) => {
    if (ctx.path !== route.path) return next();
    for (const [name, value] of route.headers) ctx.set(name, value);
    ctx.body = route.payload;
  });
  const server = conf.tls ? http2.createSecureServer(tlsOptions(), app.callback()) : http2.createServer(app.callback());
  server.listen(0, '127.0.0.1', () => measure(server, conf, () => server.close()));
}
