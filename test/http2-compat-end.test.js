'use strict';
// HTTP/2 compat responses, stock vs patched: the same decoded headers,
// bodies, trailers and RST codes, the same request/response events in the
// same order, the same handler-visible properties and errors, and the same
// frames, except that a response completed by end() without trailers ends
// with END_STREAM on its last DATA frame instead of an extra empty one.

const test = require('node:test');
const assert = require('node:assert');
const http2 = require('http2');
const fastpath = require('..');
const { differential, foldEmptyEnd, runOnce } = require('./helpers/h2-differential');

const JSON_BODY = JSON.stringify({ id: 42, name: 'widget', tags: ['a', 'b'] });

function snapshot(res) {
  return {
    headersSent: res.headersSent, finished: res.finished, writableEnded: res.writableEnded,
    statusCode: res.statusCode, headers: { ...res.getHeaders() }, sendDate: res.sendDate,
  };
}

// A scenario whose headers go out before end(): the frames stay stock's.
const roundTrip = (handler) => ({ handler, roundTrip: true });

const scenarios = {
  'setHeader + end(string)': (req, res, t) => {
    res.setHeader('Content-Type', 'text/plain');
    t.log('ret', res.end('hello world') === res);
    t.log('after', snapshot(res));
  },
  'setHeader x2 + end(JSON), 404': (req, res, t) => {
    res.statusCode = 404;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('X-Request-Id', ['a', 'b']);
    res.end(JSON_BODY);
    t.log('after', snapshot(res));
  },
  'end() with no body': (req, res) => res.end(),
  'end("") and end(empty Buffer)': (req, res, t, i) => (i === 0 ? res.end('') : res.end(Buffer.alloc(0))),
  'end(Buffer), end(latin1 string)': (req, res, t, i) => (i === 0 ? res.end(Buffer.from([0, 1, 255])) : res.end('caf\u00e9', 'latin1')),
  'end(body, cb) and end(cb)': (req, res, t, i) => {
    res.on('finish', () => t.log('finish', snapshot(res)));
    if (i === 0) res.end('body', () => t.log('cb', [res.writableFinished, res.finished]));
    else res.end(() => t.log('cb', res.writableFinished));
  },
  'end twice, write after end': (req, res, t) => {
    res.end('first');
    t.try('end again', () => res.end('second') === res);
    t.try('write after end', () => res.write('x', (err) => t.log('write cb', err && err.code)));
  },
  'writeHead(201, headers) then end(body)': roundTrip((req, res) => {
    res.setHeader('X-A', '1');
    res.writeHead(201, { 'X-B': '2' });
    res.end('created');
  }),
  'writeHead with array headers': roundTrip((req, res) => {
    res.setHeader('x-a', 'old');
    res.writeHead(200, ['x-a', 'new', 'x-b', 'b1', 'x-b', 'b2']);
    res.end('ok');
  }),
  'flushHeaders then end(body)': roundTrip((req, res) => {
    res.flushHeaders();
    res.end('late body');
  }),
  'write, write, end(chunk) (streaming)': roundTrip((req, res, t) => {
    t.log('w1', res.write('a'));
    t.log('w2', res.write(Buffer.from('b'), () => t.log('w2 cb', true)));
    res.end('c');
  }),
  'large body (1 MiB, flow-controlled)': (req, res) => res.end(Buffer.alloc(1 << 20, 7)),
  'trailers set before end': (req, res, t) => {
    res.setTrailer('x-checksum', 'abc');
    res.addTrailers({ 'X-Other': '1' });
    res.end('with trailers');
    t.log('after', snapshot(res));
  },
  'trailers with streaming writes': (req, res) => {
    res.write('part');
    res.addTrailers({ 'x-t': 'v' });
    res.end();
  },
  'HEAD request with end(body)': { requests: [{ headers: { ':method': 'HEAD' } }], handler: (req, res, t) => { res.setHeader('Content-Length', '4'); res.end('data', () => t.log('cb', true)); } },
  '204 and 304 with end()': {
    requests: [{}, {}],
    handler: (req, res, t, i) => { res.statusCode = i === 0 ? 204 : 304; res.end(); },
  },
  'sendDate = false, removeHeader, appendHeader': (req, res) => {
    res.sendDate = false;
    res.setHeader('x-gone', '1');
    res.removeHeader('x-gone');
    res.appendHeader('x-list', 'a');
    res.appendHeader('x-list', ['b', 'c']);
    res.end('ok');
  },
  'odd header names: __proto__, constructor, numeric, case and spaces': (req, res, t) => {
    t.log('inherited', [res.getHeader('constructor'), res.hasHeader('toString'), res.getHeader('__proto__')]);
    res.setHeader('X-B', 'b');
    res.setHeader('__proto__', 'p');
    res.setHeader('123', 'n');
    res.setHeader('  X-Spaced  ', 's');
    res.setHeader('x-b', ['b1', 'b2']);
    res.setHeader('X-Num', 7);
    res.appendHeader('x-b', 'b3');
    t.log('names', res.getHeaderNames());
    t.log('get', [res.getHeader('__proto__'), res.getHeader('X-SPACED'), res.hasHeader('123'), res.getHeader('constructor')]);
    t.log('headers', { ...res.getHeaders() });
    res.removeHeader('x-num');
    res.setHeader('x-num', 8);
    t.log('names after remove', res.getHeaderNames());
    res.end('ok');
    t.log('after', res.getHeaderNames());
  },
  'the same names on many responses (cached validation)': {
    requests: [{}, {}, {}, {}],
    handler: (req, res, t, i) => {
      t.try('set', () => res.setHeader(i % 2 ? 'Content-Type' : 'content-type', i === 3 ? null : 'text/plain'));
      t.try('bad token', () => res.setHeader('x\u00e9', 'v'));
      res.setHeader('X-Request-Id', String(i));
      if (!res.writableEnded) res.end(String(i));
      t.log('headers', { ...res.getHeaders() });
    },
  },
  'invalid status and header errors are the same': (req, res, t) => {
    t.try('status 99', () => { res.statusCode = 99; });
    t.try('bad header name', () => res.setHeader('bad name', 'x'));
    t.try('pseudo header', () => res.setHeader(':path', 'x'));
    t.try('undefined value', () => res.setHeader('x-u', undefined));
    t.try('trailer undefined', () => res.setTrailer('x-t', undefined));
    res.end('ok');
  },
  'POST body read then end': {
    requests: [{ headers: { ':method': 'POST' }, body: 'x'.repeat(100000) }],
    handler: (req, res, t) => {
      let n = 0;
      req.on('data', (d) => { n += d.length; });
      req.on('end', () => { t.log('received', n); res.end(String(n)); });
    },
  },
  'POST body ignored, end at once': {
    requests: [{ headers: { ':method': 'POST' }, body: 'y'.repeat(50000) }],
    handler: (req, res) => res.end('ignored'),
  },
  'client resets mid-response (RST_STREAM)': {
    requests: [{ rstAfterData: true }],
    handler: (req, res, t) => {
      res.on('close', () => t.log('close', [res.writableFinished, req.aborted, res.stream.rstCode]));
      res.write(Buffer.alloc(16384, 1));
      setTimeout(() => t.try('end after reset', () => res.end(Buffer.alloc(1 << 20, 2))), 50);
    },
  },
  'stream destroyed before end': (req, res, t) => {
    res.stream.destroy();
    t.try('end', () => res.end('never'));
    t.log('after', [res.finished, res.writableEnded, res.headersSent]);
  },
  'end from a later tick, after the request ended': (req, res) => {
    req.resume();
    req.on('end', () => setImmediate(() => res.end('later')));
  },
  'push stream through createPushResponse': (req, res, t) => {
    res.createPushResponse({ ':path': '/pushed' }, (err, pushed) => {
      t.log('push err', err && err.code);
      if (err) return res.end('no push');
      pushed.setHeader('content-type', 'text/plain');
      pushed.end('pushed body');
      res.end('main body');
    });
  },
  'several streams on one connection': {
    requests: [{}, { headers: { ':path': '/2' } }, { headers: { ':path': '/3' } }],
    handler: (req, res) => res.end(req.url),
  },
};

for (const [name, def] of Object.entries(scenarios)) {
  const scenario = typeof def === 'function' ? { handler: def } : def;
  if (!scenario.requests && /twice|, /.test(name) && name.includes('and')) scenario.requests = [{}, {}];
  test(`h2c compat: ${name}`, async () => {
    const { stock, patched } = await differential(scenario);
    assert.deepStrictEqual(patched.responses, stock.responses, 'responses');
    assert.deepStrictEqual(patched.events, stock.events, 'events');
    assert.deepStrictEqual(patched.logs, stock.logs, 'logs');
    assert.deepStrictEqual(patched.pushed, stock.pushed, 'pushed');
    // Headers sent before end() (or trailers set) keep stock's round trip.
    const expected = scenario.roundTrip ? stock.frames : foldEmptyEnd(stock.frames);
    assert.deepStrictEqual(patched.frames, expected, 'frames');
  });
}

for (const name of ['setHeader + end(string)', 'trailers set before end', 'write, write, end(chunk) (streaming)', 'large body (1 MiB, flow-controlled)']) {
  test(`TLS compat: ${name}`, async () => {
    const def = scenarios[name];
    const { stock, patched } = await differential({ handler: def.handler ?? def, tls: true });
    assert.deepStrictEqual(patched.responses, stock.responses);
    assert.deepStrictEqual(patched.events, stock.events);
    assert.deepStrictEqual(patched.logs, stock.logs);
  });
}

test('the patched end() saves a frame: END_STREAM rides on the body', async () => {
  const { stock, patched } = await differential({ handler: scenarios['setHeader + end(string)'] });
  assert.deepStrictEqual(stock.frames[1].map((f) => f[0]), ['HEADERS', 'DATA', 'DATA']);
  assert.deepStrictEqual(patched.frames[1], [['HEADERS', 4, undefined], ['DATA', 1, 11]]);
  assert.ok(fastpath.status().patched.includes('Http2ServerResponse.prototype.end'));
});

// In a child process: the warning goes to its stderr, where it is asserted.
test('trailers set after end(): stock sends them, patched warns once and counts them', () => {
  const { spawnSync } = require('child_process');
  const script = `
    const fastpath = require('.');
    const { differential, runOnce } = require('./test/helpers/h2-differential');
    const late = { handler: (req, res) => { res.end('body'); res.setTrailer('x-late', '1'); } };
    (async () => {
      const { stock, patched } = await differential(late);
      await runOnce(late);
      console.log(JSON.stringify({ stock: stock.responses[0], patched: patched.responses[0], counted: fastpath.status().http2.lateTrailers }));
    })();`;
  const child = spawnSync(process.execPath, ['-e', script], { cwd: require('path').join(__dirname, '..'), encoding: 'utf8' });
  assert.strictEqual(child.status, 0, child.stderr);
  const { stock, patched, counted } = JSON.parse(child.stdout);
  assert.deepStrictEqual(stock.trailers, { 'x-late': '1' });
  assert.strictEqual(patched.trailers, undefined);
  assert.strictEqual(patched.body, stock.body);
  assert.strictEqual(counted, 2);
  const warnings = child.stderr.split('\n').filter((l) => l.includes('HTTP_FASTPATH_LATE_TRAILERS'));
  assert.strictEqual(warnings.length, 1, child.stderr);
});

test('HTTP_FASTPATH_HTTP2=0 leaves http2 stock', () => {
  const { spawnSync } = require('child_process');
  const script = "require('http2'); const s = require('.').status(); console.log(JSON.stringify([s.patched.filter((p) => p.startsWith('Http2')), s.http2.stockReason]))";
  const run = (env) => JSON.parse(spawnSync(process.execPath, ['-e', script], { cwd: require('path').join(__dirname, '..'), env: { ...process.env, ...env }, encoding: 'utf8' }).stdout);
  assert.deepStrictEqual(run({ HTTP_FASTPATH_HTTP2: '0' }), [[], 'HTTP_FASTPATH_HTTP2=0']);
  const [patched, reason] = run({});
  assert.ok(patched.includes('Http2ServerResponse.prototype.end'));
  assert.strictEqual(reason, null);
});

test('allowHTTP1: an HTTP/1.1 request to a secure h2 server is answered as stock', async () => {
  const https = require('https');
  const { tlsOptions } = require('./helpers/h2-differential');
  const once = async () => {
    const server = http2.createSecureServer({ ...tlsOptions(), allowHTTP1: true }, (req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end(`v${req.httpVersion}`);
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const out = await new Promise((resolve, reject) => {
      https.get({ port: server.address().port, host: '127.0.0.1', rejectUnauthorized: false, agent: false }, (res) => {
        let body = '';
        res.on('data', (d) => { body += d; });
        res.on('end', () => resolve({ status: res.statusCode, raw: res.rawHeaders.filter((h, i, a) => a[i - 1] !== 'Date' && h !== 'Date'), body }));
      }).on('error', reject);
    });
    server.close();
    return out;
  };
  fastpath.uninstall();
  let stock;
  try { stock = await once(); } finally { fastpath.install(); }
  const patched = await once();
  assert.deepStrictEqual(patched, stock);
  assert.strictEqual(patched.body, 'v1.1');
});

test('a compat layer with other internals is left stock', () => {
  const { compatSymbols } = require('../lib/http2/symbols');
  class Unknown { constructor(stream) { this.stream = stream; } }
  assert.strictEqual(compatSymbols(Unknown).recognised, false);
  // Same symbols, but a [begin-send] that no longer asks for trailers.
  class Changed extends http2.Http2ServerResponse {}
  const kBeginSend = Object.getOwnPropertySymbols(http2.Http2ServerResponse.prototype).find((s) => s.description === 'begin-send');
  Changed.prototype[kBeginSend] = function beginSend() {};
  assert.strictEqual(compatSymbols(Changed).recognised, false);
  fastpath.uninstall();
  try {
    const symbols = compatSymbols(http2.Http2ServerResponse);
    assert.strictEqual(symbols.recognised, true);
    const { planCompatEnd } = require('../lib/http2/compat-end');
    const { planHeaderStore } = require('../lib/http2/header-store');
    assert.strictEqual(planCompatEnd(http2.Http2ServerResponse.prototype, symbols, { lateTrailers: 0 }).length, 3);
    assert.strictEqual(planHeaderStore(http2.Http2ServerResponse.prototype, symbols).length, 1);
  } finally {
    fastpath.install();
  }
});
