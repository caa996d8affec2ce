'use strict';
// Node's benchmark/http/set-header.js cases: how the headers are given.
const http = require('http');
const common = require('../common/bench');

const bench = common.createBenchmark(main, {
  res: ['normal', 'setHeader', 'setHeaderImplicit', 'setHeaderWH'], c: [50],
});

const body = 'hello world\n';
const handlers = {
  normal: (req, res) => { res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length }); res.end(body); },
  setHeader: (req, res) => { res.statusCode = 200; res.setHeader('Content-Type', 'text/plain'); res.setHeader('Content-Length', body.length); res.writeHead(200); res.end(body); },
  setHeaderImplicit: (req, res) => { res.setHeader('Content-Type', 'text/plain'); res.setHeader('Content-Length', body.length); res.end(body); },
  setHeaderWH: (req, res) => { res.setHeader('Content-Type', 'text/plain'); res.writeHead(200, { 'Content-Length': body.length }); res.end(body); },
};

function main({ res, c }) {
  const server = http.createServer(handlers[res]);
  server.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, connections: c }, () => server.close());
  });
}
