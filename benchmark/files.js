'use strict';
// Static files, stock vs patched, interleaved: benchmark/http/static.js for
// each server (plain pipe, express.static, @fastify/static, koa-static) and
// file size, on this Node or (--all) on 20, 22, 24 and 26.
//
//   node benchmark/files.js [--all] [--runs N] [--duration S] [--server pipe] [--size 1m]
//
// Writes benchmark/results/files.md (req/s, MiB/s, server CPU µs per MiB,
// ratios) and files-chart-<server>.svg (MiB/s of the 1 MiB file per line).

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
const servers = [].concat(args.server ?? SERVERS);
const sizes = [].concat(args.size ?? Object.keys(SIZES));
const resultsDir = path.join(__dirname, 'results');

function benchLine(node) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const jobs = [];
  for (const server of servers) for (const size of sizes) jobs.push({ file: 'http/static.js', config: `server=${server} size=${size} c=50`, server, size });
  const binaries = [{ label: 'stock', cmd: [node] }, { label: 'patched', cmd: [node, '-r', runner.root] }];
  const results = runner.compare({ binaries, jobs, runs: args.runs, duration: args.duration, log: (l) => process.stderr.write(`${version} ${l}\n`) });
  return results.map((r, i) => {
    const mib = SIZES[jobs[i].size] / (1 << 20);
    const m = (label, key) => median(r.samples[label].map((s) => s[key]));
    const row = { version, server: jobs[i].server, size: jobs[i].size };
    for (const label of ['stock', 'patched']) {
      row[label] = { rate: m(label, 'rate'), mibps: m(label, 'rate') * mib, cpuPerMib: m(label, 'cpuUsPerReq') / mib };
    }
    return row;
  });
}

const versions = args.all ? VERSIONS : [process.versions.node];
const rows = versions.flatMap((v) => benchLine(args.all ? nodeFor(v) : process.execPath));
const md = [
  '| Node | server | file | req/s stock → patched | MiB/s stock → patched | × | server CPU µs/MiB stock → patched | CPU ÷ |',
  '|---|---|---|---|---|---|---|---|',
];
for (const r of rows) {
  const { stock: s, patched: p } = r;
  md.push(`| ${r.version} | ${r.server} | ${r.size} | ${s.rate.toFixed(0)} → ${p.rate.toFixed(0)} | ${s.mibps.toFixed(0)} → ${p.mibps.toFixed(0)} | ` +
    `${(p.rate / s.rate).toFixed(2)} | ${s.cpuPerMib.toFixed(0)} → ${p.cpuPerMib.toFixed(0)} | ${(s.cpuPerMib / p.cpuPerMib).toFixed(2)} |`);
}
console.log(md.join('\n'));
if (!args['no-write']) {
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(path.join(resultsDir, 'files.md'), md.join('\n') + '\n');
  const charts = [];
  for (const server of servers) {
    const oneMib = rows.filter((r) => r.size === '1m' && r.server === server);
    if (oneMib.length === 0) continue;
    const groups = oneMib.map((r) => ({ label: r.version, values: [r.stock.mibps, r.patched.mibps] }));
    const name = `files-chart-${server}.svg`;
    fs.writeFileSync(path.join(resultsDir, name),
      barChart({ title: `${server}: 1 MiB file, MiB/s served, median`, groups, series: ['stock', 'http-fastpath'] }));
    charts.push(name);
  }
  console.log(`\nwrote ${path.relative(process.cwd(), resultsDir)}/files.md ${charts.join(' ')}`);
}
