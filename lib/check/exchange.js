'use strict';
// The raw bytes of a route's responses: the request written by hand, the
// response read whole off the socket (Content-Length, chunked, or until the
// server closes), twice on one keep-alive connection, so that a reused
// connection is compared too. Then the two apps' bytes, compared with the
// masked headers' values replaced.

const net = require('net');

function requestBytes(route, port) {
  const headers = { Host: `127.0.0.1:${port}`, ...route.headers };
  if (route.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
    headers['Content-Length'] = Buffer.byteLength(route.body);
  }
  let head = `${route.method} ${route.path} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), Buffer.from(route.body ?? '')]);
}

// How long the response at the start of `buf` is, or -1 while incomplete
// (-2: it ends when the server closes the connection).
function responseLength(buf, method) {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return -1;
  const head = buf.subarray(0, end).toString('latin1');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
  const bodyStart = end + 4;
  if (method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) return bodyStart;
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) {
    let at = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', at);
      if (lineEnd < 0) return -1;
      const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
      if (size === 0) {
        const trailerEnd = buf.indexOf('\r\n\r\n', lineEnd);
        return trailerEnd < 0 ? -1 : trailerEnd + 4;
      }
      at = lineEnd + 2 + size + 2;
      if (at > buf.length) return -1;
    }
  }
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) return buf.length >= bodyStart + Number(length[1]) ? bodyStart + Number(length[1]) : -1;
  return -2;
}

// Resolves with the raw responses to `count` requests of the route on one connection.
function exchange(port, route, { count = 2, timeoutS }) {
  return new Promise((resolve, reject) => {
    const responses = [];
    let buf = Buffer.alloc(0);
    const socket = net.connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${route.label} did not answer within ${timeoutS} s`));
    }, timeoutS * 1000);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(responses);
    };
    const send = () => socket.write(requestBytes(route, port));
    socket.on('connect', send);
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const n = responseLength(buf, route.method);
        if (n < 0) return;
        responses.push(buf.subarray(0, n));
        buf = buf.subarray(n);
        if (responses.length === count) return done();
        if (/\r\nconnection:\s*close/i.test(responses[responses.length - 1].toString('latin1'))) return done();
        send();
      }
    });
    socket.on('end', () => {
      if (buf.length) responses.push(buf);
      done();
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${route.label}: ${err.message}`));
    });
  });
}

function mask(response, names) {
  const text = response.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const head = text.slice(0, end < 0 ? text.length : end).split('\r\n').map((line) => {
    const colon = line.indexOf(':');
    return colon > 0 && names.includes(line.slice(0, colon).toLowerCase()) ? `${line.slice(0, colon)}: <masked>` : line;
  });
  return head.join('\r\n') + (end < 0 ? '' : text.slice(end));
}

// The first difference between two lists of responses, as lines to print, or null.
function firstDifference(stock, patched, names) {
  for (let i = 0; i < Math.max(stock.length, patched.length); i++) {
    if (i >= stock.length || i >= patched.length) return [`response ${i + 1}: stock sent ${stock.length} responses, preloaded ${patched.length}`];
    const a = mask(stock[i], names);
    const b = mask(patched[i], names);
    if (a === b) continue;
    let at = 0;
    while (a[at] === b[at]) at++;
    const show = (s) => JSON.stringify(s.slice(Math.max(0, at - 40), at + 40));
    return [`response ${i + 1}, byte ${at}:`, `  stock:     ${show(a)}`, `  preloaded: ${show(b)}`];
  }
  return null;
}

module.exports = { exchange, firstDifference, requestBytes };
