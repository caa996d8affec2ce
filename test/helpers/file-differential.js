'use strict';
// The native file path's differential harness (test/file-send.test.js,
// test/file-pressure.test.js): every scenario serves files twice, on stock
// Node (package uninstalled) and patched, and compares what a client received
// (length and SHA-256 of the bytes, Date normalised), the events of every file
// stream and response and socket, and what the handlers logged (bytesRead,
// bytesWritten, writableFinished...). The patched run must also have taken the
// path the scenario expects: native (and waited for a full socket, where the
// scenario makes it wait), or stock for the reason it names.
// Set HTTP_FASTPATH_ADDON before requiring this to run on another build.

const assert = require('node:assert');
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const https = require('https');
const net = require('net');
const os = require('os');
const path = require('path');
const fastpath = require('../..');
const { normaliseDates } = require('./differential');
const { ResponseCounter } = require('./response-counter');

const native = fastpath.status().native;
const skip = !native.features.sendfile && `no native file path here (${native.reason || process.platform})`;

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'fastpath-files-'));
process.on('exit', () => fs.rmSync(DIR, { recursive: true, force: true }));
const TLS = { key: fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'tls', 'key.pem')), cert: fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'tls', 'cert.pem')) };

// Deterministic pseudo-random content, so a shifted or repeated range shows.
function makeFile(name, size) {
  const file = path.join(DIR, name);
  const buf = Buffer.alloc(size);
  let x = size ^ 0x9e3779b9;
  for (let i = 0; i < size; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    buf[i] = x & 0xff;
  }
  fs.writeFileSync(file, buf);
  return file;
}

const SIZES = [0, 1, 4095, 4096, 65536, 65537, (1 << 20) + 3, 5 << 20];
const FILES = Object.fromEntries(SIZES.map((n) => [n, makeFile(`f${n}.bin`, n)]));
const BIG = makeFile('big.bin', 24 << 20); // more than loopback socket buffers hold

const STREAM_EVENTS = ['open', 'ready', 'end', 'close', 'error'];
const RESPONSE_EVENTS = ['pipe', 'unpipe', 'prefinish', 'finish', 'close', 'error'];

function record(emitter, label, names, log) {
  for (const name of names) emitter.on(name, (arg) => log.push(`${label}:${name}${name === 'error' ? `:${arg && arg.code}` : ''}`));
}

// Every fs.ReadStream created while a scenario runs has its events recorded
// (the frameworks create theirs inside).
function trackStreams(events) {
  const original = fs.createReadStream;
  let n = 0;
  fs.createReadStream = function createReadStream() {
    const stream = original.apply(this, arguments);
    record(stream, `file${n++}`, STREAM_EVENTS, events);
    return stream;
  };
  return () => { fs.createReadStream = original; };
}

// client: { requests: [raw], pauseMs, destroyAfter (bytes), resetAfter (bytes), resetAtOnce, tls }
function runOnce(scenario) {
  return new Promise((resolve) => {
    const events = [];
    const logs = [];
    const untrack = trackStreams(events);
    let responses = 0;
    const t = { log: (...a) => logs.push(a), events, timing: scenario.timing };
    const listener = scenario.app ? scenario.app(t) : (req, res) => {
      record(res, `res${responses}`, RESPONSE_EVENTS, events);
      scenario.handler(req, res, t, responses);
      responses++;
    };
    const server = scenario.tls ? https.createServer(TLS, listener) : http.createServer(listener);
    if (scenario.setup) scenario.setup(server, t);
    server.on('connection', (socket) => {
      // How many bytes a socket had written when destroyed mid-file depends
      // on timing (how much the kernel had taken): then only 'close' counts.
      socket.on('close', () => events.push(scenario.timing ? 'socket:close' : `socket:close:${socket.bytesWritten}`));
    });
    let done = false;
    let client;
    const chunks = [];
    let received = 0;
    let resetting = false;
    let quietTimer = null;
    const answers = new ResponseCounter();
    let answered = null; // oneByOne: told how many answers are complete
    function finish() {
      if (done) return;
      done = true;
      clearTimeout(quietTimer);
      clearTimeout(hardTimer);
      client.destroy();
      server.close();
      server.closeAllConnections();
      // Let the server-side sockets close and log.
      setTimeout(() => {
        untrack();
        let bytes = Buffer.concat(chunks);
        if (scenario.compareBytes !== undefined) bytes = bytes.subarray(0, scenario.compareBytes);
        const text = normaliseDates(bytes.toString('latin1'));
        resolve({
          length: bytes.length,
          sha256: crypto.createHash('sha256').update(text, 'latin1').digest('hex'),
          head: text.slice(0, text.indexOf('\r\n\r\n') + 4),
          events: byEmitter(events), logs,
        });
      }, 60);
    }
    const hardTimer = setTimeout(finish, scenario.timeout ?? 5000);
    function quiet() {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(finish, scenario.quietMs ?? 150);
    }
    server.listen(0, '127.0.0.1', () => {
      const port = server.address().port;
      const onConnect = () => {
        const requests = [].concat(scenario.request ?? get('/'));
        if (scenario.oneByOne) {
          // Keep-alive without pipelining: each request `oneByOne` ms after
          // the last answer has arrived whole (a slow or emulated server may
          // take any time to send it; the pause lets it finish its own
          // bookkeeping of that response).
          let sent = 0;
          const next = () => {
            if (done || sent === requests.length) return;
            client.write(requests[sent++]);
          };
          answered = (complete) => {
            if (complete === sent && sent < requests.length) setTimeout(next, scenario.oneByOne);
          };
          next();
        } else {
          client.write(requests.join(''));
        }
        if (scenario.resetAtOnce) {
          // The request, then a reset before any answer (RST).
          client.resetAndDestroy();
          setTimeout(finish, scenario.quietMs ?? 300);
          return;
        }
        if (scenario.pauseMs) {
          client.pause();
          setTimeout(() => client.resume(), scenario.pauseMs);
        }
        // The quiet period starts with the first byte (a loaded machine may
        // take a while to answer); before it only the hard timeout applies.
      };
      client = scenario.tls ?
        require('tls').connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, onConnect) :
        net.connect(port, '127.0.0.1', onConnect);
      client.on('data', (d) => {
        chunks.push(d);
        received += d.length;
        if (answered !== null) answered(answers.push(d));
        if (scenario.destroyAfter !== undefined && received >= scenario.destroyAfter) {
          client.destroy();
          setTimeout(finish, 200);
          return;
        }
        if (scenario.resetAfter !== undefined && received >= scenario.resetAfter && !resetting) {
          // Stop reading, let the server fill the socket, then abort (RST).
          resetting = true;
          client.pause();
          setTimeout(() => { client.resetAndDestroy(); setTimeout(finish, 200); }, 100);
          return;
        }
        quiet();
      });
      client.on('error', () => {});
      client.on('close', () => { if (!scenario.resetAtOnce) setTimeout(finish, 100); });
    });
  });
}

// Events in order per emitter (file0, res1, socket...): the interleaving of
// different streams depends on when each file's reads complete, in stock too.
function byEmitter(events) {
  const out = {};
  for (const e of events) {
    const label = e.slice(0, e.indexOf(':'));
    (out[label] ??= []).push(e.slice(label.length + 1));
  }
  return out;
}

function files() {
  const s = fastpath.status().files;
  return { native: s.native, waited: s.waited, handedBack: { ...s.handedBack }, stock: { ...s.stock } };
}

function byReason(before, after) {
  const out = {};
  for (const [k, v] of Object.entries(after)) if (v !== (before[k] || 0)) out[k] = v - (before[k] || 0);
  return out;
}

function delta(before, after) {
  return {
    native: after.native - before.native, waited: after.waited - before.waited,
    handedBack: byReason(before.handedBack, after.handedBack), stock: byReason(before.stock, after.stock),
  };
}

// expect: { native: n, waited: n (optional), handedBack: { errno: n }, stock: { reason: n } }
// `scenario.stockAs(stock)`, if given, says whether stock's run did what the
// scenario sets up: where stock's own outcome depends on timing (which
// syscall meets a client's reset first), a stock run that went the other way
// on a loaded machine is repeated, up to three runs, before the comparison.
async function differential(scenario) {
  fastpath.uninstall();
  let stock = await runOnce(scenario);
  for (let retry = 0; retry < 2 && scenario.stockAs && !scenario.stockAs(stock); retry++) stock = await runOnce(scenario);
  fastpath.install();
  const before = files();
  const patched = await runOnce(scenario);
  const took = delta(before, files());
  assert.deepStrictEqual(patched.head, stock.head, 'head');
  assert.strictEqual(patched.length, stock.length, 'bytes received');
  assert.strictEqual(patched.sha256, stock.sha256, 'bytes received (sha256)');
  assert.deepStrictEqual(patched.events, stock.events, 'events');
  assert.deepStrictEqual(patched.logs, stock.logs, 'logs');
  const expect = scenario.expect === undefined ? { native: 1 } : scenario.expect;
  if (expect === null) return { stock, patched };
  assert.strictEqual(took.native, expect.native ?? 0, `native responses (${JSON.stringify(took)})`);
  if (expect.waited !== undefined) assert.strictEqual(took.waited, expect.waited, `waited (${JSON.stringify(took)})`);
  assert.deepStrictEqual(took.stock, expect.stock ?? {}, 'stock fallbacks by reason');
  assert.deepStrictEqual(took.handedBack, expect.handedBack ?? {}, 'handed back to Node by errno');
  return { stock, patched };
}

const get = (p, extra = '') => `GET ${p} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;

// The plain pipe handler: Content-Length of the range, then pipe; logs what
// Node reports at 'finish' and at 'close'.
function pipeFile(file, { start, end, fd, headers = {}, before, options = {} } = {}) {
  return (req, res, t, i) => {
    const size = fs.statSync(file).size;
    const from = start ?? 0;
    const to = end ?? size - 1;
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Content-Length', Math.max(0, to - from + 1));
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    const stream = fd !== undefined ? fs.createReadStream(null, { fd: fd(), start, end, ...options }) : fs.createReadStream(file, { start, end, ...options });
    if (before) before(stream, res, t);
    const socket = req.socket;
    res.on('finish', () => t.log(`res${i} finish`, { bytesRead: stream.bytesRead, finished: res.writableFinished, written: t.timing ? '-' : socket.bytesWritten }));
    stream.on('end', () => t.log(`file end`, { bytesRead: stream.bytesRead, headersSent: res.headersSent }));
    stream.pipe(res);
  };
}

module.exports = {
  fastpath, skip, DIR, TLS, makeFile, SIZES, FILES, BIG, STREAM_EVENTS, RESPONSE_EVENTS, record,
  runOnce, differential, files, delta, get, pipeFile,
};
