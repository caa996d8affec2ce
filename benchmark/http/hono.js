'use strict';
// A realistic Hono route on @hono/node-server: JSON body and six headers set
// by the route.
const common = require('../common/bench');
const route = require('../fixtures/json-route');

const bench = common.createBenchmark(main, { c: [50] });

function main({ c }) {
  const { Hono } = require('hono');
  const { serve } = require('@hono/node-server');
  const app = new Hono();
  app.get(route.path, (ctx) => {
    for (const [name, value] of route.headers) ctx.header(name, value);
    return ctx.json(route.payload);
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => {
    bench.http({ port: server.address().port, path: route.path, connections: c }, () => server.close());
  });
}
