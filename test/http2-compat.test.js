'use strict';
// Http2ServerResponse.getHeaders() (patched on Node 20-24 only) returns what
// stock returns: same keys, values (by reference) and null prototype.

const test = require('node:test');
const assert = require('node:assert');
const http2 = require('http2');
const fastpath = require('..');

const major = Number(process.versions.node.split('.')[0]);

test('getHeaders is patched on 20-24 and left alone on 26', () => {
  const patched = fastpath.status().patched.includes('Http2ServerResponse.prototype.getHeaders');
  assert.strictEqual(patched, major < 26);
});

test('getHeaders matches stock on a live h2c response with 0/1/4/16/64 headers', async () => {
  const results = [];
  const server = http2.createServer((req, res) => {
    const n = Number(req.headers['x-count']);
    const shared = ['a', 'b'];
    for (let i = 0; i < n; i++) res.setHeader(`X-H${i}`, i % 3 === 0 ? shared : i % 3 === 1 ? i : `v${i}`);
    fastpath.uninstall();
    const stock = res.getHeaders();
    fastpath.install();
    const patched = res.getHeaders();
    results.push({ n, stock, patched });
    res.end('ok');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const client = http2.connect(`http://127.0.0.1:${server.address().port}`);
  for (const n of [0, 1, 4, 16, 64]) {
    await new Promise((resolve, reject) => {
      const req = client.request({ ':path': '/', 'x-count': String(n) });
      req.on('response', (headers) => {
        for (let i = 0; i < n; i++) assert.ok(`x-h${i}` in headers);
      });
      req.resume();
      req.on('end', resolve);
      req.on('error', reject);
      req.end();
    });
  }
  client.close();
  server.close();
  assert.strictEqual(results.length, 5);
  for (const { n, stock, patched } of results) {
    assert.strictEqual(Object.getPrototypeOf(patched), null);
    assert.deepStrictEqual(Object.keys(patched), Object.keys(stock), `keys, n=${n}`);
    for (const key of Object.keys(stock)) assert.strictEqual(patched[key], stock[key], `value by reference, ${key}`);
    assert.notStrictEqual(patched, stock);
  }
});
