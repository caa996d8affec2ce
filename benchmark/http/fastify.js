'use strict';
// A realistic Fastify 5 route: JSON body and six headers set by the route.
const common = require('../common/bench');

const bench = common.createBenchmark(main, { c: [50] });

function main({ c }) {
  const fastify = require('fastify')({ logger: false });
  const payload = { id: 42, name: 'widget', tags: ['a', 'b', 'c'], price: 9.99, stock: true };
  fastify.get('/api/item', (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    reply.header('X-Request-Id', 'abc123');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Vary', 'Accept-Encoding');
    reply.header('Access-Control-Allow-Origin', '*');
    reply.send(payload);
  });
  fastify.listen({ port: 0, host: '127.0.0.1' }).then(() => {
    bench.http({ port: fastify.server.address().port, path: '/api/item', connections: c }, () => fastify.close());
  });
}
