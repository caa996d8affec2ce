'use strict';
// The package's one process-wide setting: glibc malloc's mmap and trim
// thresholds (src/allocator.rs says why: codec state re-faulted on every
// compressed response). Opt-in (HTTP_FASTPATH_MALLOC=1): measured on the
// Express compression benchmark it cuts minor faults per brotli response
// from ~75 to ~15 but costs 26-31 MiB of resident memory (+19-22 %), past
// the package's 10 % budget. Applied once, when the first HTTP server
// listens, and never over the operator's own MALLOC_* variables or
// glibc.malloc tunables, nor without the addon. status().allocator says what
// is in force and why. Also here: the periodic malloc_trim that inline codec
// jobs ask for (trimSoon).

const MMAP_THRESHOLD = 4 << 20;
const TRIM_THRESHOLD = 8 << 20;
const OPERATOR_VARIABLES = ['MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_', 'MALLOC_TOP_PAD_',
  'MALLOC_MMAP_MAX_', 'MALLOC_ARENA_MAX', 'MALLOC_ARENA_TEST', 'MALLOC_CHECK_'];

// null until the first HTTP server listens.
let outcome = null;

// Why the thresholds must be left alone, or null.
function refusal(env = process.env) {
  if (env.HTTP_FASTPATH_MALLOC !== '1') return 'off (HTTP_FASTPATH_MALLOC=1 turns it on)';
  const set = OPERATOR_VARIABLES.find((name) => env[name] !== undefined);
  if (set !== undefined) return `${set} is set`;
  if (/glibc\.malloc\./.test(env.GLIBC_TUNABLES || '')) return 'GLIBC_TUNABLES sets glibc.malloc';
  if (process.platform !== 'linux') return 'not glibc';
  return null;
}

// Once, when the first HTTP server listens. `addon`: the loaded addon, or null.
function apply(addon) {
  if (outcome !== null) return;
  let why = refusal();
  if (why === null && (addon === null || typeof addon.tuneAllocator !== 'function')) why = 'no native binary';
  if (why === null && !addon.tuneAllocator(MMAP_THRESHOLD, TRIM_THRESHOLD)) why = 'not glibc';
  outcome = why === null ?
    { applied: true, reason: null, mmapThreshold: MMAP_THRESHOLD, trimThreshold: TRIM_THRESHOLD } :
    { applied: false, reason: why, mmapThreshold: null, trimThreshold: null };
}

function snapshot() {
  if (outcome !== null) return { ...outcome };
  return { applied: false, reason: refusal() ?? 'no HTTP server has listened yet', mmapThreshold: null, trimThreshold: null };
}

// Codec state freed on the loop thread by inline codec jobs stays in its
// malloc arena (that is what saves the faults), up to the peak of streams
// open at once. Once a second, if such jobs ran since, the free memory goes
// back to the kernel as the pool threads' arenas give theirs: resident memory
// follows the load down, at the cost of one refault of what is reused after
// a trim. HTTP_FASTPATH_ZLIB_TRIM_MS changes the period (0: never).
const TRIM_INTERVAL_MS = Number(process.env.HTTP_FASTPATH_ZLIB_TRIM_MS || 1000);
let trimTimer = null;
let askedSinceTrim = false;
let trimCount = 0;

function trimSoon(addon) {
  askedSinceTrim = true;
  if (trimTimer !== null || typeof addon.trimAllocator !== 'function' || !(TRIM_INTERVAL_MS > 0)) return;
  trimTimer = setInterval(() => {
    if (!askedSinceTrim) {
      clearInterval(trimTimer);
      trimTimer = null;
      return;
    }
    askedSinceTrim = false;
    trimCount++;
    addon.trimAllocator();
  }, TRIM_INTERVAL_MS);
  trimTimer.unref();
}

function trims() {
  return trimCount;
}

module.exports = { apply, snapshot, refusal, trimSoon, trims, MMAP_THRESHOLD, TRIM_THRESHOLD };
