'use strict';
// Where codec jobs run when the process has more than one CPU
// (lib/zlib/contention.js): the idle-core figure from fake /proc and cgroup
// readings (one process with an idle core, cluster workers keeping every
// core busy, a cgroup quota on an idle host), the decision's streaks,
// hysteresis and back-off (no flapping), and real processes: one with an
// idle core stays on the pool and one with every core busy moves its small
// jobs inline, the load injected (test/fixtures/cpu-load.js), and one whose
// cores other processes really keep busy moves them inline too.

const test = require('node:test');
const assert = require('node:assert');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const c = require('../lib/zlib/contention');

const ROOT = path.join(__dirname, '..');

test('parses the allowed CPU list and /proc/stat per-CPU lines (steal counts as busy)', () => {
  assert.deepStrictEqual(c.parseCpuList('0-3,8,10-11\n'), [0, 1, 2, 3, 8, 10, 11]);
  assert.deepStrictEqual(c.parseCpuList('1'), [1]);
  const stat = 'cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 5 1 2 50 3 1 1 7 0 0\ncpu1 100 0 0 0 0 0 0 0 0 0\ncpu2 1 0 0 9 0 0 0\nintr 5\n';
  assert.deepStrictEqual(c.cpuTimes(stat, [0, 2]), { busy: 17 + 1, total: 17 + 53 + 1 + 9 });
  assert.strictEqual(c.cgroupUsage('usage_usec 12345\nuser_usec 1\n'), 12345);
  assert.strictEqual(c.cgroupUsage(''), null);
});

// Two samples one second apart with the given rates (cores), on `cpus` CPUs.
function between({ cpus, busy, cgroupUsed = null, quota = Infinity }) {
  const src = { cpus: Array.from({ length: cpus }, (_, i) => i), quota };
  const a = { at: 0, machine: { busy: 0, total: 0 }, cgroup: cgroupUsed === null ? null : 0 };
  const b = { at: 1e6, machine: { busy: busy * 100, total: cpus * 100 }, cgroup: cgroupUsed === null ? null : cgroupUsed * 1e6 };
  return c.idleCores(a, b, src);
}

test('idle cores: on the allowed CPUs, and the tighter of machine and cgroup', () => {
  const near = (actual, expected) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} vs ${expected}`);
  // One process on 2 CPUs: its loop thread 0.9, its pool 0.3, nothing else.
  near(between({ cpus: 2, busy: 1.2 }), 0.8);
  // Two cluster workers and the load generator: every core busy.
  near(between({ cpus: 2, busy: 1.98 }), 0.02);
  // 2 of 8 CPUs in a cgroup quota, the host idle: the cgroup decides.
  near(between({ cpus: 8, busy: 2.0, cgroupUsed: 1.9, quota: 2 }), 0.1);
  near(between({ cpus: 8, busy: 2.0 }), 6);
  assert.strictEqual(c.idleCores({ at: 5 }, { at: 5 }, {}), null);
});

test('the decision needs a streak each way, does not flap between the thresholds, and backs off', () => {
  const changes = [];
  const decide = c.makeDecider((inline, idle) => changes.push([inline, idle]));
  let at = 0;
  const feed = (values) => values.map((v) => decide(v, at += 500));
  const n = c.STREAK;
  const after = (count, value) => [...Array(count - 1).fill(value), !value]; // a switch at the count-th sample
  assert.deepStrictEqual(feed(Array(n - 2).fill(0.2)), Array(n - 2).fill(false));
  assert.deepStrictEqual(feed([null]), [false]); // a missing sample keeps the streak
  assert.deepStrictEqual(feed([0.1, 0.05]), [false, true]);
  assert.deepStrictEqual(changes, [[true, 0.05]]);
  // Between ENTER and LEAVE, and single idle samples: stays inline.
  assert.deepStrictEqual(feed([0.3, 0.5, 0.7, 1.5, 0.2, 1.5, 1.5, 0.6]), Array(8).fill(true));
  // Back to the pool after a streak of idle samples...
  assert.deepStrictEqual(feed(Array(n).fill(0.9)), after(n, true));
  // ...and, less than FLAP_MS after the last switch, the next one needs twice the streak, then four times.
  assert.deepStrictEqual(feed(Array(2 * n).fill(0)), after(2 * n, false));
  assert.deepStrictEqual(feed(Array(4 * n).fill(1)), after(4 * n, true));
  assert.strictEqual(changes.length, 4);
  // Alternating around both thresholds never completes a streak.
  assert.deepStrictEqual(feed([0.1, 1.5, 0.1, 1.5, 0.1, 1.5, 0.1, 1.5]), Array(8).fill(false));
  // A switch long after the last one (FLAP_MS beyond the streak it needed) needs the first streak again.
  at += c.FLAP_MS + c.MAX_STREAK * 500;
  assert.deepStrictEqual(feed(Array(n).fill(0)), after(n, false));
  // Switching back and forth as soon as allowed doubles the streak each time, up to MAX_STREAK.
  const streaks = [];
  for (let i = 0; i < 8; i++) {
    const value = i % 2 === 0 ? 1 : 0; // inline now: idle samples; then busy ones
    const seen = [];
    for (let k = 1; seen.length === 0; k++) if (decide(value, at += 500) === (value === 0)) seen.push(k);
    streaks.push(seen[0]);
  }
  assert.deepStrictEqual(streaks, [n, 2 * n, 4 * n, 8 * n, 16 * n, 32 * n, 64 * n, 128 * n].map((x) => Math.min(x, c.MAX_STREAK)));
});

test("watch() samples on an unref'd timer, calls back on a switch, and stops", async () => {
  let t = 0;
  const src = {
    cpus: [0, 1], quota: Infinity, cgroupStat: null,
    procStat: () => `cpu0 ${t += 100} 0 0 0 0 0 0\ncpu1 ${t} 0 0 0 0 0 0\n`, // both cores fully busy
    nowMicros: () => t * 1e4,
  };
  const seen = [];
  const w = c.watch(src, (inline) => seen.push(inline), 5);
  for (let i = 0; i < 40 && seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  w.stop();
  assert.deepStrictEqual(seen, [true]);
  assert.strictEqual(w.lastIdle(), 0);
});

// A real process compressing small bodies for `seconds` with its loop
// thread busy, with `spinners` other processes spinning meanwhile; with
// `busyCores`, the load it measures is that many busy cores instead of the
// machine's (test/fixtures/cpu-load.js).
function compressingProcess(spinners, { seconds = 5, busyCores } = {}) {
  const script = `
    const { spawn } = require('child_process');
    const zlib = require('zlib');
    require('http');
    const spin = 'const e = Date.now() + ${seconds * 1000 + 500}; while (Date.now() < e);';
    const kids = Array.from({ length: ${spinners} }, () => spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }));
    const end = Date.now() + ${seconds * 1000};
    const body = Buffer.alloc(2048, 'x');
    (function round() {
      const busyUntil = Date.now() + 20;
      while (Date.now() < busyUntil);
      zlib.gzip(body, () => {
        if (Date.now() < end) return setImmediate(round);
        for (const k of kids) k.kill();
        console.log(JSON.stringify(require(${JSON.stringify(ROOT)}).status().zlib));
      });
    })();`;
  const fake = busyCores === undefined ? [] : ['-r', path.join(__dirname, 'fixtures', 'cpu-load.js')];
  const r = spawnSync(process.execPath, [...fake, '-r', ROOT, '-e', script], { encoding: 'utf8', env: { ...process.env, HTTP_FASTPATH_ZLIB: '', FAKE_BUSY_CORES: String(busyCores ?? '') } });
  assert.strictEqual(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const cpus = Math.min(os.availableParallelism(), require('../lib/zlib/mode').cgroupCpus());
const skip = process.platform !== 'linux' || cpus < 2 || cpus > 8 ? 'needs Linux and 2-8 CPUs' : false;

// The load is injected: on a shared machine (a laptop, a CI runner) the
// real one depends on the neighbours, and a busy neighbour rightly moves jobs inline.
test('a process alone with an idle core keeps its jobs on the pool', { skip }, () => {
  const z = compressingProcess(0, { busyCores: 1 });
  assert.strictEqual(z.mode, 'pool', JSON.stringify(z));
  assert.strictEqual(z.switches, 0, JSON.stringify(z));
  assert.strictEqual(typeof z.idleCores, 'number', JSON.stringify(z)); // measured, and never a streak below ENTER
  assert.strictEqual(z.inline, 0);
});

test('a process whose every core is busy moves small jobs inline', { skip }, () => {
  const z = compressingProcess(0, { busyCores: cpus });
  assert.strictEqual(z.mode, 'inline', JSON.stringify(z));
  assert.ok(z.switches >= 1, JSON.stringify(z));
  assert.ok(z.inline > 0, JSON.stringify(z));
  assert.match(z.reason, /^cores busy/);
});

// The real measurement: other processes keep every core busy. A neighbour can
// only add load, so it cannot flip this one.
test('a process whose cores other processes keep busy moves small jobs inline', { skip }, () => {
  const z = compressingProcess(cpus - 1 + 1);
  assert.strictEqual(z.mode, 'inline', JSON.stringify(z));
  assert.ok(z.switches >= 1, JSON.stringify(z));
  assert.ok(z.inline > 0, JSON.stringify(z));
  assert.match(z.reason, /^cores busy/);
});

test('a switch back to the pool: the patched streams run their jobs on the pool, with the same bytes', { skip: !require('..').status().native.loaded && 'no native addon' }, async () => {
  const fastpath = require('..');
  require('http'); // the package installs itself here, before its modules are used below
  const zlib = require('zlib');
  const inlineJobs = require('../lib/zlib/inline-jobs');
  const patch = require('../lib/setup/patch');
  const patches = inlineJobs.planInlineJobs(zlib, () => fastpath.native);
  patch.apply(patches);
  const body = Buffer.from(JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ id: i, name: `item ${i}` }))));
  const gzip = () => new Promise((resolve, reject) => zlib.gzip(body, (err, out) => (err ? reject(err) : resolve(out))));
  try {
    const counts = () => inlineJobs.snapshot();
    inlineJobs.setEnabled(false);
    const before = counts();
    const pooledOut = await gzip();
    const mid = counts();
    assert.strictEqual(mid.inline, before.inline);
    assert.ok((mid.pooled.poolMode ?? 0) > (before.pooled.poolMode ?? 0), JSON.stringify(mid));
    inlineJobs.setEnabled(true);
    const inlineOut = await gzip();
    assert.ok(counts().inline > mid.inline, JSON.stringify(counts()));
    assert.deepStrictEqual(pooledOut, zlib.gzipSync(body));
    assert.deepStrictEqual(inlineOut, pooledOut);
  } finally {
    patch.revert(patches);
    inlineJobs.setEnabled(true);
  }
});
