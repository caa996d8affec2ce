'use strict';
// The soak target: a patched server (run with --expose-gc) that counts
// requests and, when asked over IPC, reports memory after a full GC and its
// open connections.
const http = require('http');
const fastpath = require('../..');

let requests = 0;
const server = http.createServer((req, res) => {
  requests++;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('X-Request', String(requests));
  res.end(JSON.stringify({ ok: true, n: requests }));
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port, status: fastpath.status() }));
process.on('message', (m) => {
  if (m !== 'report') return;
  global.gc();
  global.gc();
  server.getConnections((err, connections) => {
    const mem = process.memoryUsage();
    process.send({
      requests, rss: mem.rss, heapUsed: mem.heapUsed, connections,
      handles: process._getActiveHandles().length,
      serverListeners: server.listenerCount('request') + server.listenerCount('connection'),
    });
  });
});
process.on('disconnect', () => process.exit(0));
