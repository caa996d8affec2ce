'use strict';
// Interleaved old/new benchmark runs and a compare.R-style table.
//
//   node benchmark/compare.js --shim [--runs 10] [--filter hello] [--set c=50] [--csv out.csv] [--duration 5]
//   node benchmark/compare.js --old /path/to/node --new benchmark/node-fastpath ...
//   node benchmark/compare.js --shim --unpinned --filter compression --set cluster=2 ...
//
// --shim compares one Node (--old, default this one) with and without
// `-r http-fastpath`. Each run is one child process measuring one
// configuration, pinned to CPU 0 with wrk on CPU 1 (when taskset exists;
// --unpinned: anywhere, for cluster=N runs whose workers share every core).
// Columns: median req/s old and new, improvement of the mean, confidence
// stars from Welch's t-test (* p<0.05, ** p<0.01, *** p<0.001), the ±
// accuracy of the improvement at 5/1/0.1 %, and server CPU µs per request.

const fs = require('fs');
const { parseArgs, printTable } = require('./common/util');
const runner = require('./common/runner');

const args = parseArgs(process.argv.slice(2), { runs: 10, duration: 5 });
const list = (v) => [].concat(v ?? []).filter((s) => typeof s === 'string');
const filters = list(args.filter);
const files = (args._.length ? args._ : runner.listBenchmarks())
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));

const oldNode = typeof args.old === 'string' ? args.old : process.execPath;
const newCmd = args.shim ? [typeof args.new === 'string' ? args.new : oldNode, '-r', runner.root] :
  [typeof args.new === 'string' ? args.new : process.execPath];
const binaries = [{ label: 'old', cmd: [oldNode] }, { label: 'new', cmd: newCmd }];

const jobs = [];
for (const file of files) for (const config of runner.configsOf(file, list(args.set))) jobs.push({ file, config });
const results = runner.compare({ binaries, jobs, runs: args.runs, duration: args.duration, pinned: !args.unpinned, log: (l) => process.stderr.write(l + '\n') });
if (typeof args.csv === 'string') fs.writeFileSync(args.csv, runner.csv(results));
printTable(runner.summarise(results));
