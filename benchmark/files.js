'use strict';
// Static files, stock vs patched, interleaved: benchmark/http/static.js for
// each server (plain pipe, express.static, @fastify/static, koa-static) and
// file size, on this Node or (--all) on 20, 22, 24 and 26.
//
//   node benchmark/files.js [--all] [--runs N] [--duration S] [--server pipe] [--size 1m] [--client discard]
//
// Writes benchmark/results/files.md (req/s, MiB/s, server CPU µs per MiB,
// ratios) and files-chart-<server>.svg (MiB/s of the 1 MiB file per line;
// of the 16 MiB file with the discarding client).
// --client discard loads the servers with common/discard-load.py instead of
// wrk (bodies dropped in the kernel: at 16 MiB wrk's copy is the cap) and
// writes files-discard.md and files-discard-chart-<server>.svg. Only 16 MiB
// by default: at 1 MiB the script's own per-response cost (Python) caps it.

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { parseArgs, median } = require('./common/util');
const runner = require('./common/runner');
const { nodeFor } = runner;
const { barChart } = require('./common/chart');
const { SIZES } = require('./fixtures/static-files');

const SERVERS = ['pipe', 'express', 'fastify', 'koa'];
const VERSIONS = ['20', '22.23.5', '24.22.3', '26.12.1'];
const args = parseArgs(process.argv.slice(2), { runs: 5, duration: 3 });
const discard = args.client === 'discard';
const prefix = discard ? 'files-discard' : 'files';
const servers = [].concat(args.server ?? SERVERS);
const sizes = [].concat(args.size ?? (discard ? ['16m'] : Object.keys(SIZES)));
const resultsDir = path.join(__dirname, 'results');

// MiB served in a run. From 1 MiB up, the bytes the client received (heads
// are < 0.03 % of them): at 16 MiB a run completes few responses, 50
// connections finish theirs in waves, and counting whole responses would
// drop up to a wave's worth of bytes that were sent. Below, responses × size.
function mibOf(sample, mib) {
  return mib >= 1 ? sample.bytes / (1 << 20) : sample.requests * mib;
}

function benchLine(node) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const jobs = [];
  for (const server of servers) for (const size of sizes) jobs.push({ file: 'http/static.js', config: `server=${server} size=${size} c=50${discard ? ' client=discard' : ''}`, server, size });
  const binaries = [{ label: 'stock', cmd: [node] }, { label: 'patched', cmd: [node, '-r', runner.root] }];
  const results = runner.compare({ binaries, jobs, runs: args.runs, duration: args.duration, log: (l) => process.stderr.write(`${version} ${l}\n`) });
  return results.map((r, i) => {
    const mib = SIZES[jobs[i].size] / (1 << 20);
    const row = { version, server: jobs[i].server, size: jobs[i].size };
    for (const label of ['stock', 'patched']) {
      const samples = r.samples[label];
      const m = (f) => median(samples.map(f));
      row[label] = { rate: m((x) => x.rate), mibps: m((x) => mibOf(x, mib) / x.seconds), cpuPerMib: m((x) => x.cpuUs / mibOf(x, mib)) };
    }
    return row;
  });
}

const versions = args.all ? VERSIONS : [process.versions.node];
const rows = versions.flatMap((v) => benchLine(args.all ? nodeFor(v) : process.execPath));
const md = [
  '| Node | server | file | req/s stock → patched | MiB/s stock → patched | MiB/s × | server CPU µs/MiB stock → patched | CPU ÷ |',
  '|---|---|---|---|---|---|---|---|',
];
for (const r of rows) {
  const { stock: s, patched: p } = r;
  md.push(`| ${r.version} | ${r.server} | ${r.size} | ${s.rate.toFixed(0)} → ${p.rate.toFixed(0)} | ${s.mibps.toFixed(0)} → ${p.mibps.toFixed(0)} | ` +
    `${(p.mibps / s.mibps).toFixed(2)} | ${s.cpuPerMib.toFixed(0)} → ${p.cpuPerMib.toFixed(0)} | ${(s.cpuPerMib / p.cpuPerMib).toFixed(2)} |`);
}
console.log(md.join('\n'));
if (!args['no-write']) {
  fs.mkdirSync(resultsDir, { recursive: true });
  // Rows of the cells not measured this time stay as they were.
  const file = path.join(resultsDir, `${prefix}.md`);
  const key = (line) => line.split('|').slice(1, 4).map((c) => c.trim()).join(' ');
  const fresh = new Map(md.slice(2).map((l) => [key(l), l]));
  const kept = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').slice(2).filter((l) => !fresh.has(key(l))) : [];
  const order = (l) => [VERSIONS.findIndex((v) => key(l).startsWith(`v${v}`)), SERVERS.indexOf(key(l).split(' ')[1]), Object.keys(SIZES).indexOf(key(l).split(' ')[2])];
  const all = [...kept, ...fresh.values()].sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
  fs.writeFileSync(file, [...md.slice(0, 2), ...all].join('\n') + '\n');
  const charts = [];
  const charted = discard ? '16m' : '1m';
  for (const server of servers) {
    const oneSize = rows.filter((r) => r.size === charted && r.server === server);
    if (oneSize.length === 0) continue;
    const groups = oneSize.map((r) => ({ label: r.version, values: [r.stock.mibps, r.patched.mibps] }));
    const name = `${prefix}-chart-${server}.svg`;
    fs.writeFileSync(path.join(resultsDir, name),
      barChart({ title: `${server}: ${charted === '1m' ? '1 MiB' : '16 MiB'} file, MiB/s served, median${discard ? ' (discarding client)' : ''}`, groups, series: ['stock', 'http-fastpath'] }));
    charts.push(name);
  }
  console.log(`\nwrote ${path.relative(process.cwd(), resultsDir)}/${prefix}.md ${charts.join(' ')}`);
}
