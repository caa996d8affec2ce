'use strict';
// npm run test:linux-arm64 [-- --node 22.23.5,24.22.3] [--files test/a.test.js,...] [--chunk N] [--no-cargo]
// The test suite on arm64 Node under qemu-user emulation, from this checkout:
//   1. the arm64 addon and its testing build (build.js),
//   2. Rust's unit tests compiled for arm64 and run under qemu,
//   3. for each Node line, node --test over the test files in chunks planned
//      to take a few minutes each (emulation is 4-10x slower than native),
//      one file at a time (--test-concurrency=1: two emulated servers on two
//      cores starve each other's timeouts). A chunk still running after ten
//      minutes is stopped and counted as failed.
// Exit status 0 only if every step passed.

const path = require('path');
const fs = require('fs');
const { spawnSync } = require('child_process');
const { cargoEnv, ROOT } = require('../cargo-addon');
const { TARGET_DIR, crossToolchain, build } = require('./build');
const { prepare, emulatedEnv } = require('./emulation');
const { say } = require('./requirements');

// The newest release of each line, as CI tests on x64 (.ci/run).
const LINES = ['20.20.2', '22.23.5', '24.22.3', '26.12.1'];
const CHUNK_SECONDS = 240;
const CHUNK_TIMEOUT_MS = 10 * 60_000;
// Seconds each file took under emulation (arm64 Node 22 on this project's
// 2-core x86_64 machine, 2026-12-07); a file not listed counts as 60.
const EMULATED_SECONDS = {
  'allocator.test.js': 11,
  'bad-input.test.js': 10,
  'body-parsers.test.js': 44,
  'check.test.js': 109,
  'client-differential.test.js': 11,
  'docs-links.test.js': 3,
  'express-binding.test.js': 44,
  'express-helpers.test.js': 28,
  'express5-dispatch.test.js': 32,
  'faults.test.js': 35,
  'file-pressure.test.js': 116,
  'file-send.test.js': 79,
  'first-use.test.js': 6,
  'frameworks.test.js': 20,
  'fuzz.test.js': 20,
  'header-store.test.js': 5,
  'http2-compat-end.test.js': 17,
  'http2-compat.test.js': 3,
  'install.test.js': 55,
  'koa-helpers.test.js': 11,
  'lifecycle.test.js': 29,
  'native.test.js': 25,
  'node-forms.test.js': 16,
  'preload.test.js': 37,
  'server-differential.test.js': 18,
  'stack-frames.test.js': 15,
  'threads.test.js': 18,
  'typings.test.js': 113,
  'verify.test.js': 13,
  'zlib-contention.test.js': 26,
  'zlib-inline.test.js': 45,
};

function option(argv, name) {
  const i = argv.indexOf(name);
  return i === -1 ? null : argv[i + 1];
}

function plan(files) {
  const chunks = [];
  let current = [];
  let seconds = 0;
  for (const f of files) {
    const s = EMULATED_SECONDS[path.basename(f)] ?? 60;
    if (current.length > 0 && seconds + s > CHUNK_SECONDS) {
      chunks.push(current);
      current = [];
      seconds = 0;
    }
    current.push(f);
    seconds += s;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

// node --test's totals; for a chunk stopped before them, its top-level
// results so far and the last test that finished.
function summary(output) {
  const total = (name) => Number((output.match(new RegExp(`^# ${name} (\\d+)$`, 'm')) || [])[1]);
  if (/^# tests \d+$/m.test(output)) {
    return { tests: total('tests'), pass: total('pass'), fail: total('fail'), skipped: total('skipped'), lastFinished: null };
  }
  const lines = output.split('\n');
  const pass = lines.filter((l) => /^ok \d+ /.test(l)).length;
  const fail = lines.filter((l) => /^not ok \d+ /.test(l)).length;
  const finished = lines.filter((l) => /^(not )?ok \d+ - /.test(l)).pop();
  return { tests: pass + fail, pass, fail, skipped: 0, lastFinished: finished ? finished.replace(/^(not )?ok \d+ - /, '') : null };
}

function failures(output) {
  return output.split('\n').filter((l) => /^\s*not ok \d+ - /.test(l)).map((l) => l.trim());
}

function runChunk(bin, files) {
  const started = Date.now();
  const r = spawnSync(path.join(bin, 'node'), ['--test', '--test-concurrency=1', '--test-reporter=tap', ...files], {
    cwd: ROOT, env: emulatedEnv(bin), encoding: 'utf8', timeout: CHUNK_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 256 * 1024 * 1024,
  });
  const output = (r.stdout || '') + (r.stderr || '');
  return { ...summary(output), status: r.status, timedOut: r.error?.code === 'ETIMEDOUT', seconds: (Date.now() - started) / 1000, failed: failures(output), output };
}

function cargoTest(toolchain) {
  say('cargo test (release) for aarch64 under qemu');
  const r = spawnSync(toolchain.cargo, ['test', '--release', '--quiet', '--target', toolchain.target, '--target-dir', TARGET_DIR], {
    cwd: ROOT, env: cargoEnv(toolchain), stdio: 'inherit',
  });
  return r.status === 0;
}

function main(argv) {
  const versions = (option(argv, '--node') || LINES.join(',')).split(',');
  const all = fs.readdirSync(path.join(ROOT, 'test')).filter((f) => f.endsWith('.test.js')).sort().map((f) => `test/${f}`);
  const files = option(argv, '--files') ? option(argv, '--files').split(',') : all;
  const chunks = plan(files);
  const only = option(argv, '--chunk');
  const toolchain = crossToolchain();
  build(toolchain, { testing: true });
  const bins = prepare(versions);
  const skipCargo = argv.includes('--no-cargo') || only !== null;
  let ok = skipCargo || cargoTest(toolchain);
  const log = path.join(ROOT, 'target', 'linux-arm64-tests');
  fs.mkdirSync(log, { recursive: true });
  for (const v of versions) {
    for (const [i, chunk] of chunks.entries()) {
      if (only !== null && Number(only) !== i + 1) continue;
      const r = runChunk(bins.get(v), chunk);
      const file = path.join(log, `node-${v}-chunk-${i + 1}.tap`);
      fs.writeFileSync(file, r.output);
      const passed = r.status === 0 && !r.timedOut && r.fail === 0;
      ok = ok && passed;
      const stopped = r.timedOut ? `STOPPED after ${r.seconds.toFixed(0)} s (the last test to finish: "${r.lastFinished}"), ` : '';
      say(`Node ${v} chunk ${i + 1}/${chunks.length} (${chunk.length} files): ${stopped}${r.pass}/${r.tests} pass, ${r.fail} fail, ${r.skipped} skipped, ${r.seconds.toFixed(0)} s${passed ? '' : ` (${path.relative(ROOT, file)})`}`);
      for (const f of r.failed) say(`  ${f}`);
    }
  }
  say(ok ? 'all passed' : 'FAILED');
  return ok;
}

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2)) ? 0 : 1;
  } catch (err) {
    say(err.message);
    process.exitCode = 1;
  }
}

module.exports = { plan, summary, LINES };
