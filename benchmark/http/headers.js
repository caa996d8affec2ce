'use strict';
// Many response headers (Node's benchmark/http/headers.js shape).
const http = require('http');
const common = require('../common/bench');

const bench = common.createBenchmark(main, { n: [10, 50], c: [50] });

function main({ n, c }) {
  const names = [];
  for (let i = 0; i < n; i++) names.push(`Header-${i}`);
  const server = http.createServer((req, res) => {
    for (let i = 0; i < n; i++) res.setHeader(names[i], 'some header value');
    res.end('ok');
  });
  server.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, connections: c }, () => server.close());
  });
}
