'use strict';
// The addon and shim in worker_threads (main thread and two workers serving
// at once, then workers exiting) and under cluster: responses identical to
// stock, no crash.

const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { Worker } = require('worker_threads');
const { spawnSync } = require('child_process');
const { serve } = require('./fixtures/thread-server');

const fixture = path.join(__dirname, 'fixtures', 'thread-server.js');

test('main thread and two workers serve byte-identical responses at once', { timeout: 60000 }, async () => {
  const workers = ['worker-1', 'worker-2'].map((label) => new Worker(fixture, { workerData: { label }, execArgv: [] }));
  const fromWorkers = workers.map((w) => new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); }));
  // Listen for 'exit' now: a worker exits right after posting its result.
  const exits = workers.map((w) => new Promise((resolve) => w.once('exit', resolve)));
  const results = await Promise.all([serve('main'), ...fromWorkers]);
  for (const r of results) {
    assert.strictEqual(r.status.active, true, r.label);
    assert.strictEqual(r.status.native.loaded, true, r.label);
    assert.strictEqual(r.out.length, 20);
    for (const { stock, patched } of r.out) {
      assert.match(stock, new RegExp(`X-Thread: ${r.label}`));
      assert.strictEqual(patched, stock, r.label);
    }
  }
  const codes = await Promise.all(exits);
  assert.deepStrictEqual(codes, [0, 0]);
  // The addon still works in this thread after the workers' environments are torn down.
  const { native } = require('..');
  assert.deepStrictEqual(native.buildHttpMessage('A\r\n', ['B', 'c']), Buffer.from('A\r\nB: c\r\n\r\n'));
});

test('workers that load the addon and are terminated at once do not crash the process', { timeout: 60000 }, async () => {
  for (let i = 0; i < 4; i++) {
    const w = new Worker(`require(${JSON.stringify(path.join(__dirname, '..'))}); setInterval(() => {}, 1000);`, { eval: true, execArgv: [] });
    await new Promise((r) => w.once('online', r));
    await w.terminate();
  }
});

test('cluster: two workers behind the primary answer like stock', () => {
  const app = path.join(__dirname, 'fixtures', 'cluster-app.js');
  const run = (env) => spawnSync(process.execPath, [app],
    { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60000 });
  const patched = run({});
  const stock = run({ HTTP_FASTPATH: '0' });
  assert.strictEqual(patched.status, 0, patched.stderr);
  assert.strictEqual(stock.status, 0, stock.stderr);
  assert.ok(patched.stdout.trim() && stock.stdout.trim(), `no answers:\n${patched.stderr}\n${stock.stderr}`);
  const p = JSON.parse(patched.stdout);
  const s = JSON.parse(stock.stdout);
  assert.strictEqual(p.length, 6);
  assert.deepStrictEqual(p.map((a) => a.slice(0, 3)), s.map((a) => a.slice(0, 3)));
  assert.ok(p.every((a) => a[3].endsWith(' on ')), 'workers patched');
  assert.ok(s.every((a) => a[3].endsWith(' off')), 'stock run not patched');
});
