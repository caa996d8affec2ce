'use strict';
// ns per built message head, 1/5/20 headers: the JS ways the shim can build
// a head versus the native builder and header store, including the cost of
// crossing the Node-API boundary. Decides what runs on the hot path.
//   node benchmark/micro/build-message.js [--n 200000] [--runs 7] [--dry-run]

const { native } = require('../..');
const { parseArgs, median, printTable } = require('../common/util');

const args = parseArgs(process.argv.slice(2), { n: 200000, runs: 7 });
if (args['dry-run']) { args.n = 2000; args.runs = 1; }
if (!native) throw new Error('native addon not loaded');
const { buildHttpMessage, HeaderStore } = native;

const FIRST = 'HTTP/1.1 200 OK\r\n';
function pairs(count) {
  const names = ['Content-Type', 'Content-Length', 'Date', 'Connection', 'Keep-Alive', 'Cache-Control', 'ETag', 'X-Powered-By'];
  const out = [];
  for (let i = 0; i < count; i++) out.push(i < names.length ? names[i] : `X-Header-${i}`, `value-${i}-abcdefgh`);
  return out;
}

const cases = {
  'js concat (string, what Node writes)': (flat) => () => {
    let h = FIRST;
    for (let i = 0; i < flat.length; i += 2) h += flat[i] + ': ' + flat[i + 1] + '\r\n';
    return h + '\r\n';
  },
  'js concat + Buffer.from latin1': (flat) => () => {
    let h = FIRST;
    for (let i = 0; i < flat.length; i += 2) h += flat[i] + ': ' + flat[i + 1] + '\r\n';
    return Buffer.from(h + '\r\n', 'latin1');
  },
  'js concat + latin1Write into reused Buffer': (flat) => {
    const out = Buffer.allocUnsafe(4096);
    return () => {
      let h = FIRST;
      for (let i = 0; i < flat.length; i += 2) h += flat[i] + ': ' + flat[i + 1] + '\r\n';
      return out.latin1Write(h + '\r\n', 0);
    };
  },
  'native buildHttpMessage -> new Buffer': (flat) => () => buildHttpMessage(FIRST, flat),
  'native buildHttpMessage -> reused Buffer': (flat) => {
    const out = Buffer.allocUnsafe(4096);
    return () => buildHttpMessage(FIRST, flat, undefined, out);
  },
  'native HeaderStore set*N + render -> reused Buffer': (flat) => {
    const out = Buffer.allocUnsafe(4096);
    return () => {
      const s = new HeaderStore();
      for (let i = 0; i < flat.length; i += 2) s.set(flat[i], flat[i + 1]);
      return s.render(FIRST, undefined, out);
    };
  },
  'native HeaderStore render only (headers cached)': (flat) => {
    const out = Buffer.allocUnsafe(4096);
    const s = new HeaderStore();
    for (let i = 0; i < flat.length; i += 2) s.set(flat[i], flat[i + 1]);
    return () => s.render(FIRST, undefined, out);
  },
};

let sink;
function time(fn, n) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink = fn();
  return Number(process.hrtime.bigint() - start) / n;
}

const rows = [];
for (const count of [1, 5, 20]) {
  const flat = pairs(count);
  const fns = Object.entries(cases).map(([name, make]) => [name, make(flat)]);
  const samples = new Map(fns.map(([name]) => [name, []]));
  for (const [, fn] of fns) time(fn, Math.min(args.n, 20000)); // warm-up
  for (let r = 0; r < args.runs; r++) {
    for (const [name, fn] of fns) samples.get(name).push(time(fn, args.n)); // interleaved
  }
  const base = median(samples.get('js concat (string, what Node writes)'));
  for (const [name] of fns) {
    const ns = median(samples.get(name));
    rows.push({ headers: count, method: name, 'ns/build': ns.toFixed(0), 'vs js string': (ns / base).toFixed(2) + 'x' });
  }
}
printTable(rows);
if (typeof sink === 'undefined') console.log('');
