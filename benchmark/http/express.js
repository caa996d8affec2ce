'use strict';
// A realistic Express 5 route: JSON body and six headers set by the route
// (plus Express's own X-Powered-By, ETag and Content-Type/Length).
const common = require('../common/bench');

const bench = common.createBenchmark(main, { c: [50] });

function main({ c }) {
  const express = require('express');
  const app = express();
  const payload = { id: 42, name: 'widget', tags: ['a', 'b', 'c'], price: 9.99, stock: true };
  app.get('/api/item', (req, res) => {
    res.set('Cache-Control', 'no-store');
    res.set('X-Request-Id', 'abc123');
    res.set('X-Frame-Options', 'DENY');
    res.set('X-Content-Type-Options', 'nosniff');
    res.set('Vary', 'Accept-Encoding');
    res.set('Access-Control-Allow-Origin', '*');
    res.json(payload);
  });
  const server = app.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, path: '/api/item', connections: c }, () => server.close());
  });
}
