'use strict';
// end(body) versus write(body) + end(), for strings and Buffers.
const http = require('http');
const common = require('../common/bench');

const bench = common.createBenchmark(main, { type: ['asc', 'buf'], len: [64, 4096], method: ['end', 'write'], c: [50] });

function main({ type, len, method, c }) {
  const body = type === 'buf' ? Buffer.alloc(len, 'c') : 'c'.repeat(len);
  const server = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'text/plain');
    if (method === 'write') { res.write(body); res.end(); } else res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, connections: c }, () => server.close());
  });
}
