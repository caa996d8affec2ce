'use strict';
// Sends one raw HTTP/1.1 request on a fresh connection (TLS with `tls: true`,
// any certificate accepted) and resolves with everything the server sent
// until it went quiet or closed.

const net = require('net');
const tls = require('tls');

function rawRequest(port, request, { quietMs = 80, timeoutMs = 3000, tls: secure = false } = {}) {
  return new Promise((resolve) => {
    const chunks = [];
    let quiet = null;
    const socket = secure ?
      tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => socket.write(request)) :
      net.connect(port, '127.0.0.1', () => socket.write(request));
    const done = () => {
      clearTimeout(quiet);
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks));
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('data', (d) => {
      chunks.push(d);
      clearTimeout(quiet);
      quiet = setTimeout(done, quietMs);
    });
    socket.on('close', done);
    socket.on('error', () => {});
  });
}

module.exports = { rawRequest };
