'use strict';
// HTTP/2 responses through the compat API (`res.setHeader` + `res.end`),
// with the core stream API (`stream.respond` + `stream.end`, the floor) and
// HTTP/1 (the same handler on http.createServer) beside it.
//
//   api=compat|core|http1  route=hello|json  tls=0|1  m=streams per connection
//
// h2c with prior knowledge or h2 over TLS (ALPN), h2load on the load core;
// HTTP/1 is driven by wrk (plain text only).
const common = require('../common/bench');
const { tlsOptions } = require('../fixtures/tls');

const bench = common.createBenchmark(main, {
  api: ['compat', 'core', 'http1'],
  route: ['json', 'hello'],
  tls: [0, 1],
  m: [1, 10],
  c: [50],
});

const JSON_BODY = JSON.stringify({ id: 42, name: 'widget', tags: ['a', 'b', 'c'], price: 9.99, stock: true });

function handlers(route) {
  if (route === 'hello') {
    return {
      compat: (req, res) => { res.setHeader('Content-Type', 'text/plain'); res.end('hello world'); },
      core: (stream) => { stream.respond({ ':status': 200, 'content-type': 'text/plain' }); stream.end('hello world'); },
    };
  }
  return {
    compat: (req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('X-Request-Id', 'abc123');
      res.end(JSON_BODY);
    },
    core: (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/json', 'x-request-id': 'abc123' });
      stream.end(JSON_BODY);
    },
  };
}

function main({ api, route, tls, m, c }) {
  const { compat, core } = handlers(route);
  let server;
  if (api === 'http1') {
    if (tls) throw new Error('http1 is measured over plain TCP only');
    server = require('http').createServer(compat);
  } else {
    const http2 = require('http2');
    server = tls ? http2.createSecureServer(tlsOptions()) : http2.createServer();
    if (api === 'compat') server.on('request', compat);
    else server.on('stream', core);
  }
  server.listen(0, '127.0.0.1', () => {
    const client = api === 'http1' ? 'wrk' : 'h2load';
    bench.http({ port: server.address().port, connections: c, client, streams: m, tls: Boolean(tls) }, () => {
      server.close();
      process.exit(0);
    });
  });
}
