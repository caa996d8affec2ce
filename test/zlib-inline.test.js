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
// Opt-in (lib/index.js: resident memory).
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

test('large jobs stay on the threadpool; without HTTP_FASTPATH_ZLIB=1 zlib is left alone', { skip }, () => {
  const { spawnSync } = require('child_process');
  const root = require('path').join(__dirname, '..');
  // zlib is patched in a process that loads HTTP, as everything else.
  const probe = (env) => spawnSync(process.execPath, ['-r', root, '-e', `
    require('http');
    const zlib = require('zlib');
    const s = zlib.createGzip();
    s.on('data', () => {}).on('end', () => setTimeout(() => console.log(JSON.stringify({ zlib: require(${JSON.stringify(root)}).status().zlib ?? null })), 300));
    s.write(Buffer.alloc(100, 97));
    s.end(Buffer.alloc(1 << 20, 98));
  `], { env: { ...process.env, ...env }, encoding: 'utf8' });
  const on = probe({ HTTP_FASTPATH_ZLIB: '1', HTTP_FASTPATH_ZLIB_TRIM_MS: '50' });
  assert.strictEqual(on.status, 0, on.stderr);
  const counts = JSON.parse(on.stdout).zlib;
  assert.ok(counts.inline >= 1 && counts.pooled.large >= 1, JSON.stringify(counts));
  // The memory kept by inline jobs was given back once they stopped.
  assert.ok(counts.trims >= 1, JSON.stringify(counts));
  const off = probe({ HTTP_FASTPATH_ZLIB: '0' });
  assert.deepStrictEqual(JSON.parse(off.stdout), { zlib: null });
  assert.deepStrictEqual(JSON.parse(probe({ HTTP_FASTPATH_ZLIB: '' }).stdout), { zlib: null });
});
