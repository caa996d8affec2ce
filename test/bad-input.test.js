'use strict';
// Invalid header names and values: the patched server must throw the same
// error (name, code, message) from the same call as stock Node, and put the
// same bytes (here: a well-formed response sent after the failed call) on
// the wire; nothing half-written.

process.env.HTTP_FASTPATH_STATS = '1';
const test = require('node:test');
const assert = require('node:assert');
const { compare } = require('./helpers/differential');

const badNames = ['', 'a b', 'a:b', 'é', 'x\r\n', 'x\u0100', 'tab\there', undefined, null, 42, {}];
const badValues = [undefined, 'a\r\nb', 'a\nb', 'a\rb', 'nul\0', 'del\x7f', 'ctl\x01', 'wide\u0100', 'emoji 😀',
  ['ok', 'bad\n'], ['fine', 'also fine'], Symbol('s'), 'é ÿ latin1 is fine'];

function describe(v) {
  if (typeof v === 'symbol') return 'Symbol';
  return JSON.stringify(v) ?? String(v);
}

function attempts(name, original) {
  return (req, res, t) => {
    // appendHeader mutates an array value in place: each run gets its own copy.
    const value = Array.isArray(original) ? [...original] : original;
    t.try('setHeader', () => res.setHeader(name, value));
    t.try('appendHeader', () => res.appendHeader(name, value));
    t.try('getHeaders', () => res.getHeaders());
    t.try('writeHead(obj)', () => res.writeHead(200, { [typeof name === 'string' ? name : String(name)]: value }));
    if (!res.headersSent) t.try('writeHead(array)', () => res.writeHead(200, [name, value]));
    t.snapshot('state', res);
    if (!res.headersSent) res.setHeader('X-After', 'ok');
    res.end('after');
  };
}

for (const name of badNames) {
  test(`bad header name ${describe(name)}`, async () => {
    const { stock, patched } = await compare({ handler: attempts(name, 'v') });
    assert.deepStrictEqual(patched.logs, stock.logs);
    assert.strictEqual(patched.bytes, stock.bytes);
    assert.ok(stock.logs.some((l) => l[1] && l[1].code), 'stock rejected something');
  });
}

for (const value of badValues) {
  for (const serverOptions of [{}, { insecureHTTPParser: true }]) {
    const mode = serverOptions.insecureHTTPParser ? ' (insecureHTTPParser)' : '';
    test(`header value ${describe(value)}${mode}`, async () => {
      const { stock, patched } = await compare({ serverOptions, handler: attempts('X-Test', value) });
      assert.deepStrictEqual(patched.logs, stock.logs);
      assert.strictEqual(patched.bytes, stock.bytes);
    });
  }
}

test('setHeader after headers are sent gives ERR_HTTP_HEADERS_SENT', async () => {
  const { stock, patched } = await compare({
    handler: (req, res, t) => {
      res.writeHead(200, { 'Content-Length': 2 });
      t.try('setHeader', () => res.setHeader('X', '1'));
      res.end('ok');
      t.try('setHeader after end', () => res.setHeader('X', '1'));
    },
  });
  assert.deepStrictEqual(patched.logs, stock.logs);
  assert.strictEqual(patched.logs[0][1].code, 'ERR_HTTP_HEADERS_SENT');
  assert.strictEqual(patched.bytes, stock.bytes);
});

test('bad status code and message are rejected from end() with nothing written', async () => {
  for (const setup of [(res) => { res.statusCode = 99; }, (res) => { res.statusMessage = 'a\nb'; }]) {
    const { stock, patched } = await compare({
      noBytes: true,
      handler: (req, res, t) => {
        setup(res);
        t.try('end', () => res.end('body'));
        t.snapshot('state', res);
        t.log('corked', res.socket.writableCorked);
        res.socket.destroy();
      },
    });
    assert.deepStrictEqual(patched.logs, stock.logs);
    assert.ok(patched.logs[0][1].code.startsWith('ERR_'));
    assert.strictEqual(patched.bytes, '');
    assert.strictEqual(stock.bytes, '');
  }
});
