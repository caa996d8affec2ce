'use strict';
// A realistic Express route: JSON body and six headers set by the route
// (plus Express's own X-Powered-By, ETag and Content-Type/Length).
const common = require('../common/bench');
const route = require('../fixtures/json-route');

const bench = common.createBenchmark(main, { c: [50] });

function main({ c }) {
  const express = require('express');
  const app = express();
  app.get(route.path, (req, res) => {
    for (const [name, value] of route.headers) res.set(name, value);
    res.json(route.payload);
  });
  const server = app.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, path: route.path, connections: c }, () => server.close());
  });
}
