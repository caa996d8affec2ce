'use strict';
// Http2ServerResponse.getHeaders() with n headers, in a loop: calls/second.
const http2 = require('http2');
const { EventEmitter } = require('events');
const common = require('../common/bench');

const bench = common.createBenchmark(main, { n: [0, 1, 4, 16, 64], iterations: [500000] });

function main({ n, iterations }) {
  const res = new http2.Http2ServerResponse(new EventEmitter());
  for (let i = 0; i < n; i++) res.setHeader(`x-header-${i}`, 'value');
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) sink += res.getHeaders() === null ? 1 : 0;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (sink) console.log(sink);
  bench.end(iterations / seconds, { seconds });
}
