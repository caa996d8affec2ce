'use strict';
// Differential fuzzer: each generated case runs on stock Node (shim
// uninstalled) and on patched Node, and must give the same bytes on the
// wire, the same error (name, code, message) from each operation and the
// same response events.
//   npm run fuzz -- --cases N --seed S [--concurrency C]

const http = require('http');
const net = require('net');
const fastpath = require('../..');
const { makeCase } = require('./generator');
const { normaliseDates, describeError } = require('../helpers/differential');

function apply(res, op) {
  switch (op[0]) {
    case 'setHeader': return res.setHeader(op[1], cloneValue(op[2]));
    case 'appendHeader': return res.appendHeader(op[1], cloneValue(op[2]));
    case 'removeHeader': return res.removeHeader(op[1]);
    case 'writeHead': return op[3] === undefined ? res.writeHead(op[1], op[2]) : res.writeHead(op[1], op[2], cloneValue(op[3]));
    case 'write': return res.write(op[1], op[2]);
    case 'flushHeaders': return res.flushHeaders();
    case 'statusCode': res.statusCode = op[1]; return undefined;
    case 'statusMessage': res.statusMessage = op[1]; return undefined;
    case 'sendDate': res.sendDate = op[1]; return undefined;
    case 'getHeaders': return Object.keys(res.getHeaders()).join(',');
    case 'end': return res.end(op[1], op[2]);
  }
  throw new Error(`unknown op ${op[0]}`);
}

// Values are mutated by Node (appendHeader pushes into arrays): copy per run.
function cloneValue(v) {
  if (Array.isArray(v)) return [...v];
  if (v && typeof v === 'object' && !(v instanceof Uint8Array)) return { ...v };
  return v;
}

function runCases(cases, concurrency) {
  return new Promise((resolve) => {
    const results = new Array(cases.length);
    let next = 0;
    let active = 0;
    const server = http.createServer((req, res) => {
      const c = cases[Number(req.headers['x-case'])];
      const out = results[c.index];
      const emit = res.emit;
      res.emit = function (ev, ...a) { if (ev !== 'unpipe') out.events.push(String(ev)); return emit.call(this, ev, ...a); };
      res.on('error', () => {});
      const socket = req.socket;
      res.on('close', () => { out.resClosedAt = Date.now(); out.serverBytes = socket.bytesWritten; });
      for (const op of c.ops) {
        try {
          const v = apply(res, op);
          out.ops.push(typeof v === 'string' || typeof v === 'boolean' ? v : typeof v);
        } catch (err) {
          out.ops.push(describeError(err));
        }
      }
      // A response the program did not end is cut off at once, the same way in
      // both runs (no timer: a loaded machine must not change the outcome).
      if (!res.writableEnded) res.socket?.destroy();
      out.handled = true;
    });
    server.listen(0, '127.0.0.1', () => {
      const port = server.address().port;
      const start = () => {
        while (active < concurrency && next < cases.length) {
          const i = next++;
          active++;
          const c = cases[i];
          c.index = i;
          results[i] = { bytes: [], events: [], ops: [] };
          const sock = net.connect(port, '127.0.0.1', () => {
            sock.write(c.request.replace('\r\n\r\n', `\r\nX-Case: ${i}\r\n\r\n`));
          });
          const finish = () => {
            if (results[i].done) return;
            results[i].done = true;
            clearTimeout(timer);
            sock.destroy();
            active--;
            if (next < cases.length) start();
            else if (active === 0) { server.close(); resolve(results); }
          };
          // Done when the server has run the program and the connection closed,
          // or the response emitted 'close', the client has every byte the
          // server's socket took, and then stayed quiet for 30 ms; 10 s at most.
          let last = Date.now();
          let received = 0;
          const started = last;
          const check = () => {
            if (results[i].done) return;
            const r = results[i];
            const settled = r.handled && (r.closed || (r.resClosedAt !== undefined &&
              received >= r.serverBytes && Date.now() - Math.max(last, r.resClosedAt) >= 30));
            if (settled || Date.now() - started > 10000) finish();
            else timer = setTimeout(check, 20);
          };
          let timer = setTimeout(check, 20);
          sock.on('data', (d) => { results[i].bytes.push(d); received += d.length; last = Date.now(); });
          sock.on('close', () => { results[i].closed = true; last = Date.now(); });
          sock.on('error', () => {});
        }
      };
      start();
    });
  });
}

function observe(r) {
  return { bytes: normaliseDates(Buffer.concat(r.bytes).toString('latin1'), { userDates: true }), events: r.events, ops: r.ops };
}

async function fuzz({ cases: count, seed, concurrency = 64, onDifference = () => {} }) {
  // Each run gets freshly generated cases: Node mutates values in place
  // (appendHeader pushes into arrays, even nested ones), so nothing may be shared.
  const generate = () => Array.from({ length: count }, (_, i) => makeCase(seed + i));
  const cases = generate();
  fastpath.uninstall();
  const stock = await runCases(cases, concurrency);
  fastpath.install();
  const patched = await runCases(generate(), concurrency);
  const differences = [];
  for (let i = 0; i < count; i++) {
    const a = observe(stock[i]);
    const b = observe(patched[i]);
    if (JSON.stringify(a) !== JSON.stringify(b)) {
      const fresh = makeCase(cases[i].seed);
      const d = { seed: fresh.seed, ops: fresh.ops, request: fresh.request, stock: a, patched: b };
      differences.push(d);
      onDifference(d);
    }
  }
  return { cases: count, differences };
}

module.exports = { fuzz };

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (k, d) => { const i = args.indexOf(`--${k}`); return i === -1 ? d : Number(args[i + 1]); };
  const total = opt('cases', 2000);
  const seed = opt('seed', 1);
  const batch = opt('batch', 5000);
  (async () => {
    let diffs = 0;
    for (let done = 0; done < total; done += batch) {
      const n = Math.min(batch, total - done);
      const r = await fuzz({ cases: n, seed: seed + done, concurrency: opt('concurrency', 64),
        onDifference: (d) => console.log(JSON.stringify(d, (k, v) => (v instanceof Uint8Array ? `<bytes ${Buffer.from(v).toString('hex')}>` : v))) });
      diffs += r.differences.length;
      process.stderr.write(`${done + n}/${total} cases, ${diffs} differences\n`);
    }
    console.log(`fuzz: ${total} cases from seed ${seed}, ${diffs} differences`);
    process.exitCode = diffs ? 1 : 0;
  })();
}
