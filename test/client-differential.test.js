'use strict';
// Outgoing requests (ClientRequest renders its head through the patched
// _storeHeader): the bytes a raw `net` server receives, req._header, the
// request's header getters and the parsed response must be the same as with
// stock Node, with no more writes on the client's socket.

const test = require('node:test');
const assert = require('node:assert');
const http = require('http');
const net = require('net');
const fastpath = require('..');
const { describeError, instrumentSocket } = require('./helpers/differential');

function runOnce(scenario) {
  return new Promise((resolve) => {
    const received = [];
    const logs = [];
    const counts = { write: 0, dispatch: 0 };
    const instrumented = new WeakSet();
    const server = net.createServer((socket) => {
      const chunks = [];
      received.push(chunks);
      let answered = 0;
      // One answer per request line received (a keep-alive socket carries several).
      socket.on('data', (d) => {
        chunks.push(d);
        const asked = Buffer.concat(chunks).toString('latin1').split(' HTTP/1.1\r\n').length - 1;
        for (; answered < asked; answered++) {
          setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nX-Dup: a\r\nx-dup: b\r\nSet-Cookie: c=1\r\nSet-Cookie: d=2\r\nContent-Length: 2\r\n\r\nok'), 20);
        }
      });
      socket.on('error', () => {});
    });
    server.listen(0, '127.0.0.1', () => {
      const port = server.address().port;
      const norm = (s) => (typeof s === 'string' ? s.split(String(port)).join('<port>') : s);
      const done = () => {
        server.close();
        resolve({ logs, counts, bytes: received.map((c) => norm(Buffer.concat(c).toString('latin1'))) });
      };
      let req;
      try {
        req = scenario.request(port);
      } catch (err) {
        logs.push(['request threw', describeError(err)]);
        return done();
      }
      req.on('socket', (socket) => {
        if (!instrumented.has(socket)) { instrumented.add(socket); instrumentSocket(socket, counts); }
      });
      req.on('error', (e) => logs.push(['error', describeError(e)]));
      req.on('response', (res) => {
        logs.push(['header', norm(req._header)], ['headers', norm(JSON.stringify(req.getHeaders())), Object.getPrototypeOf(req.getHeaders())], ['raw', req.getRawHeaderNames()], ['status', res.statusCode], ['response headers', res.headers, res.headersDistinct]);
        res.resume();
        res.on('end', () => setTimeout(() => { if (scenario.agent) scenario.agent.destroy(); done(); }, 10));
      });
    });
  });
}

const opts = (port, extra = {}) => ({ host: '127.0.0.1', port, ...extra });
const scenarios = [
  { name: 'GET with defaults', request: (p) => http.get(opts(p)) },
  { name: 'POST with end(body) has Content-Length', request: (p) => { const r = http.request(opts(p, { method: 'POST' })); r.end('payload'); return r; } },
  { name: 'POST with Buffer body', request: (p) => { const r = http.request(opts(p, { method: 'POST' })); r.end(Buffer.from('bytes')); return r; } },
  { name: 'PUT streamed with write() is chunked', request: (p) => { const r = http.request(opts(p, { method: 'PUT' })); r.write('a'); r.write('b'); r.end('c'); return r; } },
  { name: 'DELETE with body has no Content-Length', request: (p) => { const r = http.request(opts(p, { method: 'DELETE' })); r.end('x'); return r; } },
  { name: 'HEAD request', request: (p) => { const r = http.request(opts(p, { method: 'HEAD' })); r.end(); return r; } },
  { name: 'headers object option', request: (p) => http.get(opts(p, { headers: { 'User-Agent': 'ua', 'X-Num': 5, Accept: ['a', 'b'] } })) },
  { name: 'headers array option (validated path)', request: (p) => http.get(opts(p, { headers: ['X-A', '1', 'X-A', '2'] })) },
  { name: 'setHost: false', request: (p) => http.get(opts(p, { setHost: false, headers: { 'X-B': 'y' } })) },
  { name: 'setHeader after creation', request: (p) => { const r = http.request(opts(p)); r.setHeader('X-Late', 'l'); r.removeHeader('Host'); r.end(); return r; } },
  { name: 'Cookie array is joined', request: (p) => http.get(opts(p, { headers: { Cookie: ['a=1', 'b=2'] } })) },
  { name: 'auth option', request: (p) => http.get(opts(p, { auth: 'user:pass' })) },
  { name: 'path with query', request: (p) => http.get(opts(p, { path: '/a/b?c=d&e=f' })) },
  { name: 'uniqueHeaders option', request: (p) => { const r = http.request(opts(p, { uniqueHeaders: ['x-u'] })); r.setHeader('X-U', ['1', '2']); r.end(); return r; } },
  { name: 'Expect: 100-continue', request: (p) => { const r = http.request(opts(p, { method: 'POST', headers: { Expect: '100-continue' } })); r.end('later'); return r; } },
  { name: 'keep-alive agent', agent: null, request(p) { this.agent = new http.Agent({ keepAlive: true }); return http.get(opts(p, { agent: this.agent })); } },
  { name: 'Connection: close header', request: (p) => http.get(opts(p, { headers: { Connection: 'close' } })) },
  { name: 'Transfer-Encoding header with end(body)', request: (p) => { const r = http.request(opts(p, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked' } })); r.end('te'); return r; } },
  { name: 'invalid header in options throws', request: (p) => http.get(opts(p, { headers: { 'Bad Name': 'x' } })) },
  { name: 'latin1 header value', request: (p) => http.get(opts(p, { headers: { 'X-L': 'é' } })) },
  { name: 'joinDuplicateHeaders option', request: (p) => http.get(opts(p, { joinDuplicateHeaders: true, headers: { 'X-J': ['1', '2'] } })) },
  { name: 'end(body) once the socket is connected', request: (p) => {
    const r = http.request(opts(p, { method: 'POST', headers: { 'Content-Type': 'text/plain' } }));
    r.on('socket', (s) => s.once('connect', () => r.end('after connect')));
    return r;
  } },
  { name: 'chunked upload of Buffers after connect', request: (p) => {
    const r = http.request(opts(p, { method: 'POST' }));
    r.on('socket', (s) => s.once('connect', () => { r.write(Buffer.from('one')); r.write('two', 'latin1'); r.end(Buffer.from('three')); }));
    return r;
  } },
  { name: 'Expect: 100-continue with a body held back', request: (p) => http.request(opts(p, { method: 'PUT', headers: { Expect: '100-continue', 'Content-Length': 4 } })).end() },
  { name: 'second request reuses a keep-alive socket', agent: null, request(p) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const first = http.request(opts(p, { method: 'POST', agent: this.agent }));
    first.on('response', (res) => res.resume());
    first.end('first');
    const r = http.request(opts(p, { method: 'POST', agent: this.agent, headers: { 'X-Second': '2' } }));
    r.end('second');
    return r;
  } },
  { name: 'flushHeaders then end', request: (p) => { const r = http.request(opts(p, { method: 'POST' })); r.flushHeaders(); r.end('late body'); return r; } },
];

for (const scenario of scenarios) {
  test(`client: ${scenario.name}`, async () => {
    fastpath.uninstall();
    const stock = await runOnce(scenario);
    fastpath.install();
    const patched = await runOnce(scenario);
    assert.deepStrictEqual(patched.bytes, stock.bytes, 'bytes received by the server');
    assert.deepStrictEqual(patched.logs, stock.logs, 'request state');
    assert.ok(patched.counts.write <= stock.counts.write, `socket.write calls: ${patched.counts.write} > ${stock.counts.write}`);
    assert.ok(patched.counts.dispatch <= stock.counts.dispatch, `writes to the handle: ${patched.counts.dispatch} > ${stock.counts.dispatch}`);
    assert.ok(stock.bytes.length > 0 || stock.logs.length > 0);
  });
}
