'use strict';
// A realistic Fastify 5 route: JSON body and six headers set by the route.
const common = require('../common/bench');
const route = require('../fixtures/json-route');

const bench = common.createBenchmark(main, { c: [50] });

function main({ c }) {
  const fastify = require('fastify')({ logger: false });
  fastify.get(route.path, (request, reply) => {
    for (const [name, value] of route.headers) reply.header(name, value);
    reply.send(route.payload);
  });
  fastify.listen({ port: 0, host: '127.0.0.1' }).then(() => {
    bench.http({ port: fastify.server.address().port, path: route.path, connections: c }, () => fastify.close());
  });
}
