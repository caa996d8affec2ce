'use strict';
// ns per header-name / header-value check: Node's own JS checks (the regexes
// in _http_common, reached through http.validateHeaderName/Value) versus the
// native byte tables behind isHttpToken / hasInvalidHeaderChar.
//   node benchmark/micro/validate.js [--n 200000] [--runs 7] [--dry-run]

const http = require('http');
const { native } = require('../..');
const { parseArgs, median, printTable } = require('../common/util');

const args = parseArgs(process.argv.slice(2), { n: 200000, runs: 7 });
if (args['dry-run']) { args.n = 2000; args.runs = 1; }
const { isHttpToken, hasInvalidHeaderChar } = native;

const inputs = {
  'name Content-Type': ['name', 'Content-Type'],
  'value 20 chars': ['value', 'text/html; charset=u'],
  'value 2000 chars': ['value', 'a'.repeat(2000)],
};
const methods = {
  js: { name: (s) => http.validateHeaderName(s), value: (s) => http.validateHeaderValue('x', s) },
  native: { name: (s) => isHttpToken(s), value: (s) => hasInvalidHeaderChar(s, false) },
};

let sink;
function time(fn, s, n) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink = fn(s);
  return Number(process.hrtime.bigint() - start) / n;
}

const rows = [];
for (const [label, [kind, input]] of Object.entries(inputs)) {
  const samples = { js: [], native: [] };
  for (let r = 0; r < args.runs + 1; r++) {
    for (const m of Object.keys(methods)) {
      const t = time(methods[m][kind], input, args.n);
      if (r > 0 || args.runs === 1) samples[m].push(t); // first round warms up
    }
  }
  const js = median(samples.js);
  const nat = median(samples.native);
  rows.push({ input: label, 'js ns': js.toFixed(0), 'native ns': nat.toFixed(0), 'native/js': (nat / js).toFixed(2) + 'x' });
}
printTable(rows);
if (sink === Symbol.for('never')) console.log(sink);
