'use strict';
// getHeaders()/getHeader()/hasHeader() on a response with n headers, in a
// loop (no sockets): calls per second.
const http = require('http');
const common = require('../common/bench');

const bench = common.createBenchmark(main, { n: [1, 4, 16], op: ['getHeaders', 'getHeader'], iterations: [300000] });

function main({ n, op, iterations }) {
  const req = new http.IncomingMessage(null);
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const res = new http.ServerResponse(req);
    for (let h = 0; h < n; h++) res.setHeader(`X-Header-${h}`, 'value');
    if (op === 'getHeaders') sink += Object.keys(res.getHeaders()).length;
    else sink += res.getHeader('x-header-0').length + (res.hasHeader('content-type') ? 1 : 0);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (sink < 0) console.log(sink);
  bench.end(iterations / seconds, { seconds });
}
