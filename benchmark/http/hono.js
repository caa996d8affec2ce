'use strict';
// A realistic Hono route on @hono/node-server: JSON body and six headers set
// by the route.
const common = require('../common/bench');

const bench = common.createBenchmark(main, { c: [50] });

function main({ c }) {
  const { Hono } = require('hono');
  const { serve } = require('@hono/node-server');
  const app = new Hono();
  const payload = { id: 42, name: 'widget', tags: ['a', 'b', 'c'], price: 9.99, stock: true };
  app.get('/api/item', (ctx) => {
    ctx.header('Cache-Control', 'no-store');
    ctx.header('X-Request-Id', 'abc123');
    ctx.header('X-Frame-Options', 'DENY');
    ctx.header('X-Content-Type-Options', 'nosniff');
    ctx.header('Vary', 'Accept-Encoding');
    ctx.header('Access-Control-Allow-Origin', '*');
    return ctx.json(payload);
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => {
    bench.http({ port: server.address().port, path: '/api/item', connections: c }, () => server.close());
  });
}
