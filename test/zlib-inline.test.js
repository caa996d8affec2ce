'use strict';
// Small codec jobs on the loop thread (lib/zlib/inline-jobs.js): every stream
// run twice, stock (package uninstalled) and patched, comparing each 'data'
// chunk (length and hash), the stream's events with the nextTicks queued in
// each (one callback scope per completion), errors (code, message, at which
// event), and AsyncLocalStorage in 'data' and 'end'; and that the patched run
// really ran its small jobs inline.

const test = require('node:test');
const assert = require('node:assert');
const crypto = require('crypto');
const zlib = require('zlib');
const { AsyncLocalStorage } = require('async_hooks');
// Inline in this process whatever its CPUs (unset: one CPU only, lib/zlib/mode.js).
process.env.HTTP_FASTPATH_ZLIB = '1';
const fastpath = require('..');

const native = fastpath.status().native;
const skip = !native.loaded && `no native addon here (${native.reason})`;
const als = new AsyncLocalStorage();

function text(n) {
  const b = Buffer.alloc(n);
  let x = n ^ 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    b[i] = 97 + (x & 15);
  }
  return b;
}

const { constants: C } = zlib;
const CODECS = {
  gzip: () => zlib.createGzip(),
  'gzip level 1': () => zlib.createGzip({ level: 1 }),
  'deflate level 9': () => zlib.createDeflate({ level: 9 }),
  deflateRaw: () => zlib.createDeflateRaw(),
  'deflate dictionary': () => zlib.createDeflate({ dictionary: Buffer.from('item name tags alpha beta') }),
  'br quality 4': () => zlib.createBrotliCompress({ params: { [C.BROTLI_PARAM_QUALITY]: 4 } }),
  'br quality 11': () => zlib.createBrotliCompress(),
  'br quality 0': () => zlib.createBrotliCompress({ params: { [C.BROTLI_PARAM_QUALITY]: 0 } }),
};
if (typeof zlib.createZstdCompress === 'function') CODECS.zstd = () => zlib.createZstdCompress();

// steps: Buffers to write, 'flush' (Z_SYNC_FLUSH), 'params', 'destroy'; then
// end(). With `settle`, each step waits for the previous one's callback:
// params() while a job of the same stream runs on the pool races with it in
// stock (its outcome depends on the worker), so it is compared settled.
function run(make, steps, { settle = false } = {}) {
  return new Promise((resolve) => {
    const log = [];
    const stream = als.run({ id: 'creation' }, make);
    const note = (what) => {
      log.push(what);
      process.nextTick(() => log.push(`tick after ${what}`));
    };
    stream.on('data', (c) => note(`data ${c.length} ${crypto.createHash('sha1').update(c).digest('hex').slice(0, 10)} ${als.getStore()?.id}`));
    stream.on('end', () => note(`end ${als.getStore()?.id}`));
    stream.on('finish', () => note('finish'));
    stream.on('error', (e) => note(`error ${e.code} ${e.errno} ${e.message}`));
    stream.on('close', () => {
      note('close');
      setImmediate(() => resolve(log));
    });
    const next = (i) => {
      if (i === steps.length) {
        if (!steps.includes('destroy')) stream.end();
        return;
      }
      const step = steps[i];
      let called = false;
      const done = (what) => () => {
        if (what) note(what);
        if (settle && !called) {
          called = true;
          next(i + 1);
        }
      };
      if (step === 'flush') stream.flush(C.Z_SYNC_FLUSH, done('flushed'));
      else if (step === 'params') stream.params(1, C.Z_DEFAULT_STRATEGY, done('params done'));
      else if (step === 'destroy') stream.destroy();
      else stream.write(step, done(null));
      if (!settle || step === 'destroy') next(i + 1);
    };
    als.run({ id: 'writer' }, () => next(0));
  });
}

async function differential(make, steps, options) {
  fastpath.uninstall();
  const stock = await run(make, steps, options);
  fastpath.install();
  const before = fastpath.status().zlib.inline;
  const patched = await run(make, steps, options);
  assert.deepStrictEqual(patched, stock);
  return fastpath.status().zlib.inline - before;
}

test('compressed chunks, events and contexts as stock, from 0 bytes to 1 MiB', { skip }, async () => {
  let inline = 0;
  for (const [name, make] of Object.entries(CODECS)) {
    for (const n of [0, 1, 2048, 16384, 20000, 1 << 20]) {
      const body = text(n);
      inline += await differential(make, [body]);
      inline += await differential(make, [body.subarray(0, n >> 1), 'flush', body.subarray(n >> 1)]).catch((e) => { e.message = `${name} ${n}: ${e.message}`; throw e; });
    }
  }
  assert.ok(inline > 0, 'small jobs ran inline');
});

test('params() mid-stream, many small writes, destroy() with a job pending', { skip }, async () => {
  const body = text(4096);
  const writes = Array.from({ length: 20 }, (_, i) => body.subarray(i * 200, i * 200 + 200));
  for (const make of [CODECS.gzip, CODECS['deflate level 9']]) {
    await differential(make, [body.subarray(0, 2000), 'params', body.subarray(2000)], { settle: true });
    await differential(make, writes);
    await differential(make, [body, 'destroy']);
  }
  await differential(CODECS['br quality 4'], writes);
  await differential(CODECS['br quality 4'], [body, 'destroy']);
});

test('decompression, and corrupt input: the same error at the same event', { skip }, async () => {
  const body = text(50000);
  for (const [make, compressed] of [
    [() => zlib.createGunzip(), zlib.gzipSync(body)],
    [() => zlib.createInflate(), zlib.deflateSync(body)],
    [() => zlib.createUnzip(), zlib.gzipSync(body)],
    [() => zlib.createBrotliDecompress(), zlib.brotliCompressSync(body)],
  ]) {
    await differential(make, [compressed]);
    await differential(make, [compressed.subarray(0, 100), compressed.subarray(100)]);
    const corrupt = Buffer.from(compressed);
    corrupt.fill(0x55, 20, 60);
    await differential(make, [corrupt]);
  }
  await differential(() => zlib.createGunzip(), [Buffer.from('plainly not gzip')]);
  await differential(() => zlib.createGunzip(), [zlib.gzipSync(body).subarray(0, 500)]);
});

test('the callback API (zlib.gzip, brotliCompress) gives stock\'s results', { skip }, async () => {
  const body = text(3000);
  const viaCallback = (fn) => new Promise((resolve) => fn(body, (err, out) => resolve(err ? err.code : out.toString('base64'))));
  for (const fn of [zlib.gzip, zlib.deflate, zlib.brotliCompress]) {
    fastpath.uninstall();
    const stock = await viaCallback(fn);
    fastpath.install();
    assert.strictEqual(await viaCallback(fn), stock);
  }
});

// A process that loads HTTP and zlib, compresses 100 B then 1 MiB, and
// prints status().zlib; `cpu` pins it to one CPU (taskset).
function zlibStatusOf(env, { cpu } = {}) {
  const { spawnSync } = require('child_process');
  const root = require('path').join(__dirname, '..');
  const argv = [process.execPath, '-r', root, '-e', `
    require('http');
    const zlib = require('zlib');
    const s = zlib.createGzip();
    s.on('data', () => {}).on('end', () => setTimeout(() => console.log(JSON.stringify({
      zlib: require(${JSON.stringify(root)}).status().zlib ?? null, cpus: require('os').availableParallelism(),
    })), 300));
    s.write(Buffer.alloc(100, 97));
    s.end(Buffer.alloc(1 << 20, 98));
  `];
  const [file, ...args] = cpu === undefined ? argv : ['taskset', '-c', String(cpu), ...argv];
  const child = spawnSync(file, args, { env: { ...process.env, HTTP_FASTPATH_ZLIB: '', ...env }, encoding: 'utf8' });
  assert.strictEqual(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

const hasTaskset = require('child_process').spawnSync('taskset', ['-c', '0', 'true']).status === 0;

test('HTTP_FASTPATH_ZLIB=1: small jobs inline, large ones on the threadpool, memory given back', { skip }, () => {
  const { zlib: z } = zlibStatusOf({ HTTP_FASTPATH_ZLIB: '1', HTTP_FASTPATH_ZLIB_TRIM_MS: '50' });
  assert.strictEqual(z.mode, 'inline');
  assert.strictEqual(z.reason, 'HTTP_FASTPATH_ZLIB=1');
  assert.ok(z.inline >= 1 && z.pooled.large >= 1, JSON.stringify(z));
  // The memory kept by inline jobs was given back once they stopped.
  assert.ok(z.trims >= 1, JSON.stringify(z));
});

test('HTTP_FASTPATH_ZLIB=0 leaves zlib alone, and says so', () => {
  const { zlib: z } = zlibStatusOf({ HTTP_FASTPATH_ZLIB: '0' });
  assert.deepStrictEqual(z, { mode: 'pool', reason: 'HTTP_FASTPATH_ZLIB=0', cpus: null, inline: 0, pooled: {}, trims: 0 });
});

test('unset: small jobs inline with one CPU, on the threadpool at first with spare cores', { skip }, (t) => {
  const unpinned = zlibStatusOf({});
  const cgroup = require('../lib/zlib/mode').cgroupCpus();
  const oneCpu = Math.min(unpinned.cpus, cgroup) <= 1;
  assert.strictEqual(unpinned.zlib.mode, oneCpu ? 'inline' : 'pool', JSON.stringify(unpinned));
  assert.strictEqual(unpinned.zlib.inline > 0, oneCpu, JSON.stringify(unpinned));
  if (!oneCpu) {
    // Adaptive: on the pool until the first measurement (a second) says otherwise.
    assert.deepStrictEqual(unpinned.zlib.pooled, {});
    assert.deepStrictEqual([unpinned.zlib.switches, unpinned.zlib.idleCores], [0, null]);
  }
  if (!hasTaskset) return t.skip('no taskset to pin a process to one CPU');
  const pinned = zlibStatusOf({}, { cpu: 0 });
  assert.strictEqual(pinned.cpus, 1);
  assert.deepStrictEqual([pinned.zlib.mode, pinned.zlib.reason, pinned.zlib.cpus], ['inline', 'one CPU', 1]);
  assert.ok(pinned.zlib.inline >= 1 && pinned.zlib.pooled.large >= 1, JSON.stringify(pinned.zlib));
});

test('status().zlib is absent until the app loads zlib', () => {
  const { spawnSync } = require('child_process');
  const root = require('path').join(__dirname, '..');
  const child = spawnSync(process.execPath, ['-r', root, '-e', `require('http'); console.log(JSON.stringify(require(${JSON.stringify(root)}).status().zlib ?? null))`], { encoding: 'utf8' });
  assert.strictEqual(child.stdout.trim(), 'null', child.stderr);
});

test('the CPU count comes from the affinity and the tightest cgroup quota (v2 path, v1 cpu controller)', () => {
  const fs = require('fs');
  const os = require('os');
  const path = require('path');
  const { cgroupCpus, decide } = require('../lib/zlib/mode');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fastpath-cgroup-'));
  const put = (file, text) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  try {
    put('cpu.max', 'max 100000\n');
    put('app.slice/cpu.max', '400000 100000\n');
    put('app.slice/web.service/cpu.max', '50000 100000\n');
    assert.strictEqual(cgroupCpus(root, '0::/app.slice/web.service\n'), 0.5);
    assert.strictEqual(cgroupCpus(root, '0::/app.slice\n'), 4);
    assert.strictEqual(cgroupCpus(root, '0::/\n'), Infinity);
    put('cpu/docker/abc/cpu.cfs_quota_us', '100000\n');
    put('cpu/docker/abc/cpu.cfs_period_us', '100000\n');
    put('cpu/cpu.cfs_quota_us', '-1\n');
    put('cpu/cpu.cfs_period_us', '100000\n');
    assert.strictEqual(cgroupCpus(root, '4:memory:/docker/abc\n2:cpu,cpuacct:/docker/abc\n0::/\n'), 1);
    assert.strictEqual(cgroupCpus(root, '2:cpu,cpuacct:/\n'), Infinity);
    assert.strictEqual(cgroupCpus(root, ''), Infinity);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  assert.deepStrictEqual(decide({}, () => ({ cpus: 1 })), { inline: true, adaptive: false, reason: 'one CPU', cpus: 1 });
  assert.deepStrictEqual(decide({}, () => ({ cpus: 0.5 })), { inline: true, adaptive: false, reason: 'one CPU', cpus: 0.5 });
  assert.deepStrictEqual(decide({}, () => ({ cpus: 2, quota: 2, dir: '/sys/fs/cgroup/app' })),
    { inline: false, adaptive: true, reason: require('../lib/zlib/mode').REASONS.pool, cpus: 2, quota: 2, quotaDir: '/sys/fs/cgroup/app' });
  assert.deepStrictEqual(decide({ HTTP_FASTPATH_ZLIB: '1' }, () => ({ cpus: 8 })), { inline: true, adaptive: false, reason: 'HTTP_FASTPATH_ZLIB=1', cpus: null });
  assert.deepStrictEqual(decide({ HTTP_FASTPATH_ZLIB: '0' }, () => ({ cpus: 1 })), { inline: false, adaptive: false, reason: 'HTTP_FASTPATH_ZLIB=0', cpus: null });
});
