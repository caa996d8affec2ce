'use strict';
// What `-r http-fastpath` costs a process at start-up: wall time to exit and
// peak RSS, with and without the preload, for a process that never loads
// http (`-e 0`, what NODE_OPTIONS gives every npm script and build tool) and
// for one that does (`require('http')`: there the patching happens).
// Interleaved runs, medians.
//   node benchmark/startup.js [--runs 40] [--dry-run]

const { spawnSync } = require('child_process');
const path = require('path');
const { parseArgs, median, printTable } = require('./common/util');

const args = parseArgs(process.argv.slice(2), { runs: 40 });
if (args['dry-run']) args.runs = 2;
const root = path.join(__dirname, '..');
// Printed at exit by every variant, so all pay the same for measuring.
const report = "process.on('exit',()=>process.stdout.write(String(process.resourceUsage().maxRSS)))";

const variants = [
  ['node -e 0', []],
  ['node -r http-fastpath -e 0', ['-r', root]],
  ["node -e require('http')", [], "require('http')"],
  ["node -r http-fastpath -e require('http')", ['-r', root], "require('http')"],
];

const samples = variants.map(() => ({ ms: [], rssKiB: [] }));
for (let r = 0; r < args.runs; r++) {
  variants.forEach(([, flags, code = ''], i) => {
    const start = process.hrtime.bigint();
    const out = spawnSync(process.execPath, [...flags, '-e', `${report};${code}`], { encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (out.status !== 0) throw new Error(out.stderr);
    samples[i].ms.push(ms);
    samples[i].rssKiB.push(Number(out.stdout));
  });
}
const base = [median(samples[0].ms), median(samples[0].rssKiB)];
printTable(variants.map(([label], i) => ({
  node: process.version,
  command: label,
  'wall ms': median(samples[i].ms).toFixed(1),
  'vs node -e 0': `${(median(samples[i].ms) - base[0]) >= 0 ? '+' : ''}${(median(samples[i].ms) - base[0]).toFixed(1)} ms`,
  'peak RSS MiB': (median(samples[i].rssKiB) / 1024).toFixed(1),
  'RSS vs node -e 0': `${((median(samples[i].rssKiB) - base[1]) / 1024).toFixed(1)} MiB`,
})));
