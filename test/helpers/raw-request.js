'use strict';
// Sends one raw HTTP/1.1 request on a fresh connection (TLS with `tls: true`,
// any certificate accepted) and resolves with everything the server sent
// until it went quiet or closed. `request` may be a list of parts, written
// `gapMs` apart (one packet each); a null part ends the connection there (a
// request aborted half-way).

const net = require('net');
const tls = require('tls');

function rawRequest(port, request, { quietMs = 80, timeoutMs = 3000, tls: secure = false, gapMs = 15 } = {}) {
  return new Promise((resolve) => {
    const chunks = [];
    let quiet = null;
    const send = Array.isArray(request) ? () => writeParts(socket, request, gapMs) : () => socket.write(request);
    const socket = secure ?
      tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, send) :
      net.connect(port, '127.0.0.1', send);
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

async function writeParts(socket, parts, gapMs) {
  for (const part of parts) {
    if (part === null) {
      socket.destroy();
      return;
    }
    socket.write(part);
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
}

module.exports = { rawRequest };
