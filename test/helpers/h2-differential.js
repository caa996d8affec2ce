'use strict';
// HTTP/2 differential harness: runs one scenario against stock Node (the
// shim uninstalled) and patched Node (installed) in this process. The
// client is Node's own http2 client, connected through a TCP relay that
// records the bytes the server sent, so each run yields:
//   - frames: per stream, the HEADERS / DATA / RST_STREAM / PUSH_PROMISE
//     frames the server sent, as [type, flags, DATA length] (h2c only);
//   - responses: decoded headers (Date values checked and replaced),
//     HEADERS flags, body bytes, trailers, RST code, client errors;
//   - pushed: pushed streams' request and response headers and bodies;
//   - events: every event the compat request and response emitted, in order;
//   - logs: what the handler logged (property snapshots, thrown errors).

const http2 = require('http2');
const net = require('net');
const fs = require('fs');
const path = require('path');
const fastpath = require('../..');
const { describeError, recordEvents } = require('./differential');

const TLS_DIR = path.join(__dirname, '..', 'fixtures', 'tls');
const tlsOptions = () => ({ key: fs.readFileSync(path.join(TLS_DIR, 'key.pem')), cert: fs.readFileSync(path.join(TLS_DIR, 'cert.pem')) });
const DATE_FORMAT = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const FRAME_NAMES = { 0: 'DATA', 1: 'HEADERS', 3: 'RST_STREAM', 5: 'PUSH_PROMISE', 9: 'CONTINUATION' };

function normaliseHeaders(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers)) {
    if (k === ':authority') {
      out[k] = '<authority>'; // the relay's port
    } else if (k === 'date') {
      if (!DATE_FORMAT.test(v)) throw new Error(`bad date header ${JSON.stringify(v)}`);
      out[k] = '<date>';
    } else {
      out[k] = v;
    }
  }
  return out;
}

// Parses the server's side of an h2c connection into per-stream frames.
function parseFrames(buffer) {
  const streams = {};
  let offset = 0;
  while (offset + 9 <= buffer.length) {
    const length = buffer.readUIntBE(offset, 3);
    const type = buffer[offset + 3];
    const flags = buffer[offset + 4];
    const id = buffer.readUInt32BE(offset + 5) & 0x7fffffff;
    offset += 9 + length;
    if (id === 0 || !(type in FRAME_NAMES)) continue;
    (streams[id] ??= []).push([FRAME_NAMES[type], flags, type === 0 ? length : undefined]);
  }
  return streams;
}

// A relay on 127.0.0.1 that forwards to `port` and keeps what the server sent.
function relay(port) {
  const received = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    client.pipe(upstream);
    upstream.on('data', (d) => received.push(d));
    upstream.pipe(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, received })));
}

// scenario: {
//   handler(req, res, t)  the compat handler; t.log(label, value), t.try(label, fn)
//   requests: [{ headers, body, rstAfterData, endRequest }]   default one GET /
//   tls: true             createSecureServer (frames are not compared)
//   serverOptions         extra createServer options
// }
async function runOnce(scenario) {
  const secure = Boolean(scenario.tls);
  const server = secure
    ? http2.createSecureServer({ ...tlsOptions(), ...scenario.serverOptions })
    : http2.createServer({ ...scenario.serverOptions });
  const events = [];
  const logs = [];
  let index = 0;
  const t = {
    log: (label, value) => logs.push([label, value]),
    try: (label, fn) => {
      try {
        const v = fn();
        logs.push([label, 'ok', v === undefined || v === null || typeof v !== 'object' ? v : '<object>']);
      } catch (err) {
        logs.push([label, describeError(err)]);
      }
    },
  };
  const closed = [];
  server.on('request', (req, res) => {
    const i = index++;
    recordEvents(req, `req${i}`, events);
    recordEvents(res, `res${i}`, events);
    closed.push(new Promise((resolve) => res.on('close', resolve)));
    scenario.handler(req, res, t, i);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { server: relayServer, received } = await relay(server.address().port);
  const url = `${secure ? 'https' : 'http'}://127.0.0.1:${relayServer.address().port}`;
  const client = http2.connect(url, secure ? { rejectUnauthorized: false } : {});
  client.on('error', (err) => logs.push(['client error', describeError(err)]));
  const pushed = [];
  client.on('stream', (stream, headers) => {
    const entry = { headers: normaliseHeaders(headers), body: '' };
    pushed.push(entry);
    stream.on('push', (h) => { entry.response = normaliseHeaders(h); });
    stream.setEncoding('latin1');
    stream.on('data', (d) => { entry.body += d; });
  });
  const responses = [];
  for (const spec of scenario.requests ?? [{}]) {
    responses.push(await request(client, spec));
  }
  await Promise.race([Promise.all(closed), new Promise((r) => setTimeout(r, 2000))]);
  await new Promise((resolve) => client.close(resolve));
  await new Promise((resolve) => server.close(resolve));
  relayServer.close();
  const frames = secure ? undefined : parseFrames(Buffer.concat(received));
  return { responses, pushed, events, logs, frames };
}

function request(client, spec) {
  return new Promise((resolve) => {
    const out = { chunks: 0, body: Buffer.alloc(0) };
    const req = client.request({ ':path': '/', ...spec.headers }, { endStream: spec.body === undefined && spec.endRequest !== false });
    req.on('response', (headers, flags) => {
      out.headers = normaliseHeaders(headers);
      out.headersEndStream = Boolean(flags & 1);
    });
    req.on('push', (headers) => { (out.pushes ??= []).push(normaliseHeaders(headers)); });
    req.on('data', (d) => {
      out.body = Buffer.concat([out.body, d]);
      if (spec.rstAfterData && !out.reset) {
        out.reset = true;
        req.close(http2.constants.NGHTTP2_CANCEL);
      }
    });
    req.on('trailers', (trailers) => { out.trailers = Object.fromEntries(Object.entries(trailers)); });
    req.on('error', (err) => { out.error = describeError(err); });
    req.on('close', () => {
      out.rstCode = req.rstCode;
      out.body = out.reset ? '<reset>' : out.body.toString('latin1');
      resolve(out);
    });
    if (spec.body !== undefined) req.end(spec.body);
  });
}

// Stock's trailers round trip ends a body with an empty DATA frame carrying
// END_STREAM; the patched end() puts END_STREAM on the body's last DATA
// frame instead. Folds stock's form into the patched one.
function foldEmptyEnd(frames) {
  const out = {};
  for (const [id, list] of Object.entries(frames)) {
    const folded = [];
    for (const frame of list) {
      const last = folded[folded.length - 1];
      if (frame[0] === 'DATA' && frame[2] === 0 && (frame[1] & 1) && last && last[0] === 'DATA' && !(last[1] & 1)) {
        folded[folded.length - 1] = ['DATA', last[1] | 1, last[2]];
      } else {
        folded.push(frame);
      }
    }
    out[id] = folded;
  }
  return out;
}

async function differential(scenario) {
  fastpath.uninstall();
  let stock;
  try {
    stock = await runOnce(scenario);
  } finally {
    fastpath.install();
  }
  const patched = await runOnce(scenario);
  return { stock, patched };
}

module.exports = { differential, runOnce, foldEmptyEnd, parseFrames, tlsOptions };
