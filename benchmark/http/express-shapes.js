'use strict';
// Express 5's JSON route (res.set of three headers, res.json of a small
// object) in the server shapes real apps have:
//   app        http.createServer(app)
//   ws         the same, with a ws WebSocketServer on the same server
//   socketio   the same, with socket.io attached (its engine.io and client
//              file listeners in front of the app)
//   forwarder  http.createServer((req, res) => app(req, res))
//   wrapper    a listener that answers /health itself and passes the rest on
//              (not a pure forwarder: stays stock, the reference)
//   stoppable  http.createServer(app) with stoppable(server): a graceful-
//              shutdown listener after the app (as terminus and Apollo's
//              drain plugin add)
// Run it with `shape=... framework=express5|express4`.
const common = require('../common/bench');

const bench = common.createBenchmark(main, { shape: ['app', 'ws', 'socketio', 'forwarder', 'wrapper', 'stoppable'], framework: ['express5', 'express4'], c: [50] });

const SMALL = { id: 42, name: 'widget', tags: ['a', 'b', 'c'], price: 9.99, stock: true };
const THREE = { 'Cache-Control': 'no-store', 'X-Request-Id': 'abc123', Vary: 'Accept-Encoding' };

function main({ shape, framework, c }) {
  const http = require('http');
  const express = require(framework === 'express4' ? 'express4' : 'express');
  const app = express();
  app.get('/', (req, res) => {
    res.set(THREE);
    res.json(SMALL);
  });
  let server;
  if (shape === 'forwarder') {
    server = http.createServer((req, res) => app(req, res));
  } else if (shape === 'wrapper') {
    server = http.createServer((req, res) => {
      if (req.url === '/health') res.end('ok');
      else app(req, res);
    });
  } else {
    server = http.createServer(app);
    if (shape === 'socketio') new (require('socket.io').Server)(server).on('connection', (socket) => socket.on('ping', (m) => socket.emit('pong', m)));
    if (shape === 'stoppable') require('stoppable')(server);
    if (shape === 'ws') new (require('ws').WebSocketServer)({ server }).on('connection', (ws) => ws.on('message', (m) => ws.send(m)));
  }
  server.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, path: '/', connections: c }, () => server.close());
  });
}
