'use strict';
// A realistic Koa 3 route: JSON body and six headers set by the route.
const common = require('../common/bench');
const route = require('../fixtures/json-route');

const bench = common.createBenchmark(main, { c: [50] });

function main({ c }) {
  const Koa = require('koa');
  const app = new Koa();
  app.use((ctx, next) => {
    if (ctx.path !== route.path) return next();
    for (const [name, value] of route.headers) ctx.set(name, value);
    ctx.body = route.payload;
  });
  const server = app.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, path: route.path, connections: c }, () => server.close());
  });
}
