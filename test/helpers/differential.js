'use strict';
// Differential harness: runs one scenario against stock Node (shim
// uninstalled) and patched Node (shim installed) in this process and returns
// both observations: the raw bytes a `net` client received, every event each
// response emitted, what the handler logged (property snapshots, thrown
// errors), and how many writes reached the socket.

const http = require('http');
const net = require('net');
const fastpath = require('../..');

const DATE_LINE = /\r\nDate: ([^\r]*)\r\n/g;
const DATE_FORMAT = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

// Replaces each Date value after checking it has the exact IMF-fixdate shape.
// With `userDates`, a Date line of another shape (one a test set itself) is
// left as it is instead of failing.
function normaliseDates(text, { userDates = false } = {}) {
  return text.replace(DATE_LINE, (line, value) => {
    if (!DATE_FORMAT.test(value)) {
      if (userDates) return line;
      throw new Error(`bad Date header: ${JSON.stringify(value)}`);
    }
    return '\r\nDate: <date>\r\n';
  });
}

function describeError(err) {
  if (!(err instanceof Error)) return { thrown: String(err) };
  return { name: err.name, code: err.code, message: err.message };
}

// Counts socket.write calls and the writes the stream hands to the handle.
function instrumentSocket(socket, counts) {
  const { write, _write, _writev } = socket;
  socket.write = function (...args) { counts.write++; return write.apply(this, args); };
  socket._write = function (...args) { counts.dispatch++; return _write.apply(this, args); };
  socket._writev = function (...args) { counts.dispatch++; return _writev.apply(this, args); };
}

// Logs `label:event` for every event the emitter emits but those in `ignore`.
function recordEvents(emitter, label, log, ignore = ['newListener', 'removeListener']) {
  const emit = emitter.emit;
  emitter.emit = function (name, ...args) {
    if (!ignore.includes(name)) log.push(`${label}:${String(name)}`);
    return emit.call(this, name, ...args);
  };
}

function runOnce(scenario) {
  return new Promise((resolve, reject) => {
    const requests = [].concat(scenario.request ?? 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const expected = scenario.responses ?? requests.length;
    const events = [];
    const logs = [];
    const counts = { write: 0, dispatch: 0 };
    let closes = 0;
    let index = 0;
    let finished = false;
    const t = {
      log: (label, value) => logs.push([label, value]),
      try: (label, fn) => {
        try {
          const v = fn();
          logs.push([label, 'ok', v === undefined ? undefined : snapshotValue(v)]);
        } catch (err) {
          logs.push([label, describeError(err)]);
        }
      },
      snapshot: (label, res) => logs.push([label, snapshotResponse(res)]),
    };
    const server = http.createServer(scenario.serverOptions ?? {}, (req, res) => {
      const i = index++;
      recordEvents(res, `res${i}`, events, ['unpipe', 'newListener', 'removeListener']);
      res.on('close', () => {
        if (++closes === expected) {
          lastData = Date.now(); // wait at least `quiet` ms after the last response
          settle();
        }
      });
      try {
        scenario.handler(req, res, t, i);
      } catch (err) {
        logs.push(['handler threw', describeError(err)]);
      }
    });
    if (scenario.setupServer) scenario.setupServer(server);
    server.on('connection', (socket) => instrumentSocket(socket, counts));
    const chunks = [];
    let client;
    let lastData = Date.now();
    // Finishes once the client has had no data for `quiet` ms (a large body
    // may still be in flight when the last response emits 'close').
    const quiet = scenario.settle ?? 30;
    function settle() {
      const idle = Date.now() - lastData;
      if (idle >= quiet) finish();
      else setTimeout(settle, quiet - idle);
    }
    const timer = setTimeout(finish, scenario.timeout ?? 1500);
    function finish() {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      client.destroy();
      server.close();
      if (server.closeAllConnections) server.closeAllConnections();
      try {
        resolve({
          bytes: normaliseDates(Buffer.concat(chunks).toString('latin1')),
          events, logs, writes: counts.write, dispatches: counts.dispatch,
        });
      } catch (err) {
        reject(err);
      }
    }
    server.listen(0, '127.0.0.1', () => {
      client = net.connect(server.address().port, '127.0.0.1', () => {
        if (scenario.sendSeparately) {
          let k = 0;
          const next = () => { if (k < requests.length) { client.write(requests[k++]); setTimeout(next, 20); } };
          next();
        } else {
          client.write(requests.join(''));
        }
      });
      client.on('data', (d) => { chunks.push(d); lastData = Date.now(); });
      client.on('end', () => setTimeout(finish, 10));
      client.on('error', () => {});
    });
  });
}

function snapshotValue(v) {
  if (Buffer.isBuffer(v)) return { buffer: v.toString('hex') };
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    if (v instanceof http.OutgoingMessage) return '<message>';
    return { proto: Object.getPrototypeOf(v) === null ? null : 'object', entries: Object.entries(v).map(([k, x]) => [k, snapshotValue(x)]) };
  }
  if (Array.isArray(v)) return v.map(snapshotValue);
  return v;
}

function snapshotResponse(res) {
  return {
    headersSent: res.headersSent,
    writableEnded: res.writableEnded,
    writableFinished: res.writableFinished,
    finished: res.finished,
    statusCode: res.statusCode,
    statusMessage: res.statusMessage,
    headers: snapshotValue(res.getHeaders()),
    names: res.getHeaderNames(),
    raw: res.getRawHeaderNames(),
    header: typeof res._header === 'string' ? normaliseDates(res._header) : res._header,
    sendDate: res.sendDate,
    chunked: res.chunkedEncoding,
    last: res._last,
    keepAlive: res.shouldKeepAlive,
    contentLength: res._contentLength,
    hasSocket: res.socket !== null && res.socket !== undefined,
    writableLength: res.writableLength,
    writableCorked: res.writableCorked,
  };
}

// Runs stock first, then patched; leaves the shim installed.
async function compare(scenario) {
  fastpath.uninstall();
  const stock = await runOnce(scenario);
  fastpath.install();
  const patched = await runOnce(scenario);
  return { stock, patched };
}

module.exports = { compare, runOnce, normaliseDates, describeError, snapshotResponse, instrumentSocket, recordEvents };
