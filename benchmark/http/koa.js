'use strict';
// A realistic Koa 3 route: JSON body and six headers set by the route.
const common = require('../common/bench');

const bench = common.createBenchmark(main, { c: [50] });

function main({ c }) {
  const Koa = require('koa');
  const app = new Koa();
  const payload = { id: 42, name: 'widget', tags: ['a', 'b', 'c'], price: 9.99, stock: true };
  app.use((ctx, next) => {
    if (ctx.path !== '/api/item') return next();
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Request-Id', 'abc123');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Vary', 'Accept-Encoding');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = payload;
  });
  const server = app.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, path: '/api/item', connections: c }, () => server.close());
  });
}
