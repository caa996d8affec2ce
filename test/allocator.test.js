'use strict';
// The allocator settings (lib/setup/allocator.js, src/allocator.rs): with
// HTTP_FASTPATH_MALLOC=1, glibc's mmap and trim thresholds are set when the
// first HTTP server listens, never over the operator's own malloc settings,
// and status().allocator says what is in force and why.

const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { spawnSync } = require('child_process');
const { refusal, MMAP_THRESHOLD, TRIM_THRESHOLD } = require('../lib/setup/allocator');

const root = path.join(__dirname, '..');

test('the operator\'s settings and the switch win', () => {
  const OFF = 'off (HTTP_FASTPATH_MALLOC=1 turns it on)';
  const ON = { HTTP_FASTPATH_MALLOC: '1' };
  assert.strictEqual(refusal({}), OFF);
  assert.strictEqual(refusal({ HTTP_FASTPATH_MALLOC: '0' }), OFF);
  assert.strictEqual(refusal(ON), null);
  for (const name of ['MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_', 'MALLOC_ARENA_MAX', 'MALLOC_TOP_PAD_']) {
    assert.strictEqual(refusal({ ...ON, [name]: '1' }), `${name} is set`);
  }
  assert.strictEqual(refusal({ ...ON, GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=1000' }), 'GLIBC_TUNABLES sets glibc.malloc');
  assert.strictEqual(refusal({ ...ON, GLIBC_TUNABLES: 'glibc.pthread.rseq=0' }), null);
});

function allocatorAfterListen(env) {
  const r = spawnSync(process.execPath, ['-e', `
    const fastpath = require(${JSON.stringify(root)});
    const http = require('http');
    const before = fastpath.status().allocator;
    const server = http.createServer().listen(0, '127.0.0.1', () => {
      console.log(JSON.stringify({ before, after: fastpath.status().allocator }));
      server.close();
    });
  `], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.strictEqual(r.stderr, '');
  return JSON.parse(r.stdout);
}

const off = (reason) => ({ applied: false, reason, mmapThreshold: null, trimThreshold: null });

test('with HTTP_FASTPATH_MALLOC=1, set when the first HTTP server listens; left alone when the operator chose', () => {
  const ON = { HTTP_FASTPATH_MALLOC: '1' };
  const on = allocatorAfterListen(ON);
  assert.deepStrictEqual(on.before, off('no HTTP server has listened yet'));
  assert.deepStrictEqual(on.after, { applied: true, reason: null, mmapThreshold: MMAP_THRESHOLD, trimThreshold: TRIM_THRESHOLD });
  assert.deepStrictEqual(allocatorAfterListen({ HTTP_FASTPATH_MALLOC: '' }).after, off('off (HTTP_FASTPATH_MALLOC=1 turns it on)'));
  assert.deepStrictEqual(allocatorAfterListen({ ...ON, MALLOC_ARENA_MAX: '2' }).after, off('MALLOC_ARENA_MAX is set'));
  assert.deepStrictEqual(allocatorAfterListen({ ...ON, HTTP_FASTPATH_ADDON: path.join(root, 'missing.node') }).after, off('no native binary'));
});
