'use strict';
// The headline case: setHeader('Content-Type') + end(body).
const http = require('http');
const common = require('../common/bench');

const bench = common.createBenchmark(main, { len: [11, 1024], c: [50] });

function main({ len, c }) {
  const body = 'x'.repeat(len);
  const server = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'text/plain');
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, connections: c }, () => server.close());
  });
}
