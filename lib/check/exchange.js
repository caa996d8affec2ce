'use strict';
// The raw bytes of a route's responses: the request written by hand, the
// response read whole off the socket (Content-Length, chunked, or until the
// server closes), twice on one keep-alive connection, so that a reused
// connection is compared too. Then the two apps' bytes, compared with the
// masked headers' values replaced, and without what two stock runs of the
// same requests do not agree on (varyingParts).

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

// A response (Buffer or latin1 text) split into its head lines and its body.
function split(response) {
  const text = response.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  return end < 0 ? { lines: text.split('\r\n'), body: null } : { lines: text.slice(0, end).split('\r\n'), body: text.slice(end + 4) };
}

const nameOf = (line) => {
  const colon = line.indexOf(':');
  return colon > 0 ? line.slice(0, colon).toLowerCase() : null;
};

// The response with the values of the headers in `names` replaced (the
// first, status line is never a header).
function mask(response, names, marker = '<masked>') {
  const { lines, body } = split(response);
  const head = lines.map((line, i) => (i > 0 && names.includes(nameOf(line)) ? `${line.slice(0, line.indexOf(':'))}: ${marker}` : line));
  return head.join('\r\n') + (body === null ? '' : `\r\n\r\n${body}`);
}

// A body as words (runs of letters, digits and + / = . _ -) and the single
// characters between them: a timestamp, an id or a counter is one word
// however many of its digits changed.
const words = (body) => body.match(/[\w+/=.-]+|[^\w+/=.-]/g) ?? [];

// What differs between two stock runs of the same requests, per response:
// the headers whose lines differ (`headers`, lowercase names) and the body,
// as the indexes of the words that differ (words()), or 'all' when the two
// bodies do not even have the same number of words. Null for a response
// both runs sent the same.
function varyingParts(first, second, masked) {
  return first.map((a, i) => {
    const b = second[i];
    if (b === undefined) return null;
    const x = split(mask(a, masked));
    const y = split(mask(b, masked));
    const linesByName = (lines) => {
      const byName = new Map();
      for (const line of lines.slice(1)) byName.set(nameOf(line), [...(byName.get(nameOf(line)) ?? []), line]);
      return byName;
    };
    const lx = linesByName(x.lines);
    const ly = linesByName(y.lines);
    const headers = [...new Set([...lx.keys(), ...ly.keys()])]
      .filter((name) => name !== null && JSON.stringify(lx.get(name)) !== JSON.stringify(ly.get(name)));
    let body = null;
    if (x.body !== y.body) {
      const wx = words(x.body ?? '');
      const wy = words(y.body ?? '');
      body = wx.length !== wy.length ? 'all' : wx.flatMap((w, at) => (w === wy[at] ? [] : [at]));
    }
    // Named as the app spells them.
    const spelling = (name) => (lx.get(name) ?? ly.get(name))[0].split(':')[0];
    return headers.length === 0 && body === null ? null : { headers, names: headers.map(spelling), body };
  });
}

// The first difference between two lists of responses, as lines to print,
// or null. `masked`: header names whose values are not compared; `varying`:
// varyingParts() of two stock runs, whose parts are not compared either.
function firstDifference(stock, patched, masked, varying = []) {
  for (let i = 0; i < Math.max(stock.length, patched.length); i++) {
    if (i >= stock.length || i >= patched.length) return [`response ${i + 1}: stock sent ${stock.length} responses, preloaded ${patched.length}`];
    const v = varying[i] ?? { headers: [], body: null };
    const a = withoutVarying(mask(mask(stock[i], masked), v.headers, '<varies>'), v.body);
    const b = withoutVarying(mask(mask(patched[i], masked), v.headers, '<varies>'), v.body);
    if (a === b) continue;
    let at = 0;
    while (a[at] === b[at]) at++;
    const show = (text) => JSON.stringify(text.slice(Math.max(0, at - 40), at + 40));
    return [`response ${i + 1}, byte ${at}:`, `  stock:     ${show(a)}`, `  preloaded: ${show(b)}`];
  }
  return null;
}

// A masked response's text with the body's varying words (or all of it) replaced.
function withoutVarying(text, body) {
  const { lines, body: rest } = split(text);
  if (body === null || rest === null) return text;
  const w = body === 'all' ? ['<varies>'] : words(rest);
  if (body !== 'all') for (const at of body) if (at < w.length) w[at] = '<varies>';
  return `${lines.join('\r\n')}\r\n\r\n${w.join('')}`;
}

// What varyingParts() found, for people: 'X-Response-Time, 1 word(s) of response 1's body'.
function describeVarying(varying) {
  const headers = new Set();
  const bodies = [];
  for (const [i, v] of varying.entries()) {
    if (v === null) continue;
    for (const name of v.names) headers.add(name);
    if (v.body === 'all') bodies.push(`response ${i + 1}'s body`);
    else if (v.body !== null) bodies.push(`${v.body.length} word(s) of response ${i + 1}'s body`);
  }
  return [...headers, ...bodies];
}

module.exports = { exchange, firstDifference, varyingParts, describeVarying, requestBytes };
