'use strict';
// What the package gains on each Node release, older patches beside the
// newest of their line, in one interleaved run (every release stock and
// preloaded, random order each round; server pinned to CPU 0, wrk on CPU 1).
//
//   node benchmark/versions.js --versions 24.11.0,24.22.3,26.2.0,26.12.1 --filter http/express.js [--runs 5] [--duration 5]
//
// Per release: median CPU µs per request stock → preloaded and their ratio
// (the gain), req/s of both, and the gain as a share of the gain of the
// newest release of the same line in the run.

const { parseArgs, printTable, median } = require('./common/util');
const runner = require('./common/runner');

const args = parseArgs(process.argv.slice(2), { runs: 5, duration: 5, versions: '24.11.0,24.22.3,26.2.0,26.12.1', filter: 'http/express.js' });
const versions = String(args.versions).split(',');
const files = runner.listBenchmarks().filter((f) => f.includes(String(args.filter)));
const binaries = versions.flatMap((v) => {
  const node = runner.nodeFor(v);
  return [{ label: `${v} stock`, cmd: [node] }, { label: `${v} preloaded`, cmd: [node, '-r', runner.root] }];
});
const jobs = files.flatMap((file) => runner.configsOf(file).map((config) => ({ file, config })));
const results = runner.compare({ binaries, jobs, runs: args.runs, duration: args.duration, log: (l) => process.stderr.write(l + '\n') });

const newest = (line) => versions.filter((v) => v.split('.')[0] === line).sort((a, b) => { const x = a.split('.').map(Number); const y = b.split('.').map(Number); return y[0] - x[0] || y[1] - x[1] || y[2] - x[2]; })[0];
for (const { file, config, samples } of results) {
  const gain = {};
  const rows = versions.map((v) => {
    const cpu = (k) => median(samples[`${v} ${k}`].map((r) => r.cpuUsPerReq));
    const rate = (k) => median(samples[`${v} ${k}`].map((r) => r.rate));
    gain[v] = cpu('stock') / cpu('preloaded');
    return { v, row: { node: v, 'cpu µs/req stock → preloaded': `${cpu('stock').toFixed(1)} → ${cpu('preloaded').toFixed(1)}`, 'gain (cpu ÷)': gain[v].toFixed(2), 'req/s stock → preloaded': `${rate('stock').toFixed(0)} → ${rate('preloaded').toFixed(0)}` } };
  });
  console.log(`\n${file} ${config} (${args.runs} interleaved rounds of ${args.duration} s)`);
  printTable(rows.map(({ v, row }) => ({ ...row, 'gain vs newest of line': `${((gain[v] - 1) / (gain[newest(v.split('.')[0])] - 1) * 100).toFixed(0)} %` })));
}
