'use strict';
// The physical limit: a raw net server that parses nothing and answers every
// request it sees with a prebuilt response (same bytes as hello.js len=11).
const net = require('net');
const common = require('../common/bench');

const bench = common.createBenchmark(main, { c: [50] });

function main({ c }) {
  const response = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: Wed, 02 Dec 2026 00:00:00 GMT\r\n' +
    'Connection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 11\r\n\r\nxxxxxxxxxxx');
  const server = net.createServer((socket) => {
    socket.on('data', (d) => {
      let n = 0;
      for (let i = d.indexOf('\r\n\r\n'); i !== -1; i = d.indexOf('\r\n\r\n', i + 4)) n++;
      for (let i = 0; i < n; i++) socket.write(response);
    });
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, connections: c }, () => server.close());
  });
}
