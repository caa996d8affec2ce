'use strict';
// Outgoing requests (ClientRequest renders its head through the patched
// _storeHeader): the bytes a raw `net` server receives, req._header and the
// request's header getters must be the same as with stock Node.

const test = require('node:test');
const assert = require('node:assert');
const http = require('http');
const net = require('net');
const fastpath = require('..');
const { describeError } = require('./helpers/differential');

function runOnce(scenario) {
  return new Promise((resolve) => {
    const received = [];
    const logs = [];
    const server = net.createServer((socket) => {
      const chunks = [];
      received.push(chunks);
      let answered = false;
      socket.on('data', (d) => {
        chunks.push(d);
        if (!answered && Buffer.concat(chunks).includes('\r\n\r\n')) {
          answered = true;
          setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'), 20);
        }
      });
      socket.on('error', () => {});
    });
    server.listen(0, '127.0.0.1', () => {
      const port = server.address().port;
      const norm = (s) => (typeof s === 'string' ? s.split(String(port)).join('<port>') : s);
      const done = () => {
        server.close();
        resolve({ logs, bytes: received.map((c) => norm(Buffer.concat(c).toString('latin1'))) });
      };
      let req;
      try {
        req = scenario.request(port);
      } catch (err) {
        logs.push(['request threw', describeError(err)]);
        return done();
      }
      req.on('error', (e) => logs.push(['error', describeError(e)]));
      req.on('response', (res) => {
        logs.push(['header', norm(req._header)], ['headers', norm(JSON.stringify(req.getHeaders())), Object.getPrototypeOf(req.getHeaders())], ['raw', req.getRawHeaderNames()], ['status', res.statusCode]);
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
    assert.ok(stock.bytes.length > 0 || stock.logs.length > 0);
  });
}
