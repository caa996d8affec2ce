'use strict';
// Faults, stock vs patched: clients that disconnect before, during and after
// the response, sockets destroyed in 'finish', res.destroy() mid-body, a
// slow reader on a large body (backpressure), server close with keep-alive
// sockets, timeouts. The bytes that arrive, the response events and the
// handler's observations must match.

const test = require('node:test');
const assert = require('node:assert');
const http = require('http');
const net = require('net');
const crypto = require('crypto');
const fastpath = require('..');
const { normaliseDates } = require('./helpers/differential');

const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
// The backpressure body: 24 MiB in `npm test`; HTTP_FASTPATH_FAULT_MB=100 for the full check.
const BIG_MB = Number(process.env.HTTP_FASTPATH_FAULT_MB) || 24;

function runFault(scenario) {
  return new Promise((resolve) => {
    const events = [];
    const logs = [];
    const chunks = [];
    let done = false;
    const server = http.createServer(scenario.serverOptions ?? {}, (req, res) => {
      const emit = res.emit;
      res.emit = function (ev, ...a) { if (ev !== 'unpipe') events.push(String(ev)); return emit.call(this, ev, ...a); };
      res.on('error', (e) => logs.push(['error', e.code]));
      scenario.handler(req, res, (...l) => logs.push(l));
    });
    if (scenario.setup) scenario.setup(server, (...l) => logs.push(l));
    const finish = () => {
      if (done) return;
      done = true;
      const bytes = Buffer.concat(chunks);
      server.close();
      server.closeAllConnections?.();
      const text = normaliseDates(bytes.toString('latin1'));
      setTimeout(() => resolve({
        events, logs, length: bytes.length,
        hash: crypto.createHash('sha1').update(text, 'latin1').digest('hex').slice(0, 12),
        head: text.slice(0, 300).split('\r\n\r\n')[0],
      }), 30);
    };
    server.listen(0, '127.0.0.1', () => {
      const socket = net.connect(server.address().port, '127.0.0.1');
      socket.on('data', (d) => chunks.push(d));
      socket.on('close', () => setTimeout(finish, 50));
      socket.on('error', () => {});
      scenario.client(socket, finish, server);
      setTimeout(finish, scenario.timeout ?? 3000);
    });
  });
}

const scenarios = {
  // Each step waits for the one before (no timer races, so it holds on a slow
  // or emulated machine): the client leaves once the request has arrived, the
  // handler answers once the server has seen it leave, and the run ends then.
  'client disconnects before the response': {
    client: (s, finish, server) => {
      s.write(GET);
      server.once('request', (req) => { req.socket.once('close', () => setImmediate(finish)); s.destroy(); });
    },
    handler: (req, res, log) => req.socket.once('close', () => { res.setHeader('X', '1'); res.end('too late'); log('ended', res.writableEnded); }),
  },
  'client disconnects during a large body': {
    client: (s) => { s.write(GET); s.once('data', () => s.destroy()); },
    handler: (req, res, log) => { res.end(Buffer.alloc(8 << 20, 1)); log('ended', res.writableEnded); },
  },
  'client disconnects right after the response': {
    client: (s) => { s.write(GET); s.once('data', () => setTimeout(() => s.destroy(), 10)); },
    handler: (req, res) => res.end('short'),
  },
  'socket destroyed in a finish handler': {
    client: (s) => s.write(GET + GET),
    handler: (req, res, log) => { res.on('finish', () => { log('finish, socket?', Boolean(res.socket)); req.socket.destroy(); }); res.end('first'); },
  },
  'res.destroy() mid-body': {
    client: (s) => s.write(GET),
    handler: (req, res, log) => { res.write('part one'); setTimeout(() => { res.destroy(); log('destroyed', res.destroyed); }, 20); },
  },
  [`slow reader on a ${BIG_MB} MiB body (backpressure)`]: {
    timeout: 20000 * Math.ceil(BIG_MB / 24),
    client: (s, finish) => {
      s.write(GET);
      let got = 0;
      s.on('data', (d) => {
        got += d.length;
        s.pause();
        setTimeout(() => s.resume(), 1);
        if (got >= BIG_MB * 1024 * 1024 + 100) setTimeout(finish, 50);
      });
    },
    handler: (req, res, log) => {
      const body = Buffer.alloc(BIG_MB << 20);
      for (let i = 0; i < body.length; i += 4096) body[i] = i & 0xff;
      const ok = res.end(body);
      log('end returned this', ok === res);
      res.on('finish', () => log('finish'));
    },
  },
  'streamed body with drain events under backpressure': {
    timeout: 20000,
    client: (s) => { s.write(GET); s.on('data', () => { s.pause(); setTimeout(() => s.resume(), 2); }); },
    handler: (req, res, log) => {
      let n = 0;
      let drains = 0;
      res.on('drain', () => drains++);
      const chunk = Buffer.alloc(256 * 1024, 3);
      const pump = () => {
        while (n < 40) {
          n++;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end('done', () => log('ended', n, drains > 0));
      };
      pump();
    },
  },
  // The server closes once the response is done, so the socket is idle.
  'server.close() with a keep-alive socket': {
    client: (s) => s.write(GET),
    handler: (req, res) => res.end('ka'),
    setup: (server, log) => server.once('request', (req, res) => res.once('finish', () => setImmediate(() => server.close(() => log('closed'))))),
  },
  'server timeout fires on an idle response': {
    serverOptions: {},
    setup: (server, log) => { server.setTimeout(100, (socket) => { log('timeout'); socket.destroy(); }); },
    client: (s) => s.write(GET),
    handler: (req, res, log) => { log('waiting'); },
  },
  'headersTimeout on a slow client': {
    serverOptions: { headersTimeout: 200, requestTimeout: 300 },
    setup: (server) => { server.connectionsCheckingInterval = 50; },
    client: (s) => s.write('GET / HTTP/1.1\r\nHost: x\r\n'),
    handler: (req, res) => res.end('never'),
  },
  'error thrown after setHeader, then a 500 from an error handler': {
    client: (s) => s.write(GET),
    handler: (req, res, log) => {
      try {
        res.setHeader('Content-Type', 'text/plain');
        throw new Error('handler failed');
      } catch (err) {
        log('caught', err.message);
        res.statusCode = 500;
        res.end('Internal Server Error');
      }
    },
  },
};

for (const [name, scenario] of Object.entries(scenarios)) {
  test(`fault: ${name}`, { timeout: 60000 * Math.ceil(BIG_MB / 24) }, async () => {
    fastpath.uninstall();
    const stock = await runFault(scenario);
    fastpath.install();
    const patched = await runFault(scenario);
    assert.deepStrictEqual(patched, stock);
  });
}
