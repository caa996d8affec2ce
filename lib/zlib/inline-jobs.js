'use strict';
// Small codec jobs on the loop thread. Every zlib, brotli and zstd stream
// runs each chunk as a threadpool job: lib/zlib.js's processChunk() calls
// handle.write(...), a worker runs the codec, and the completion
// (processCallback, with `this` the handle) runs in a later poll phase. For a
// small job the round trip costs more than the job (~7 context switches per
// compressed response), and the codec state, allocated on the worker, is
// given back to the kernel when the stream ends and faulted in again by the
// next response (~94 minor faults per brotli response).
//
// Here a small job runs with the handle's own writeSync (same arguments,
// same codec, same windows and flush flags in the same order, so the same
// bytes and the same 'data' chunks), and its completion, or its error, is
// delivered where the threadpool's would land at the earliest: a later poll
// phase (lib/loop/next-poll.js), in the async context the stream was created
// in. Larger jobs stay on the pool, as Node puts them.

const { AsyncResource } = require('async_hooks');
const nextPoll = require('../loop/next-poll');
const allocator = require('../setup/allocator');

const kCompletion = Symbol('http-fastpath.zlibCompletion');
const kResource = Symbol('http-fastpath.zlibResource');

// A job runs inline when the input given to the stream since its last flush
// (what a flush or finish job may have to compress: brotli keeps its input
// until then) and the job's output window are at most these.
const MAX_INPUT = 16 << 10;
const MAX_OUTPUT = 64 << 10;
const kUnflushed = Symbol('http-fastpath.zlibUnflushed');

const counts = { inline: 0, pooled: { __proto__: null } };

// False while the measured mode says the pool (lib/zlib/contention.js): read
// once per job.
let enabled = true;
function setEnabled(value) {
  enabled = value;
}

function pooled(reason) {
  counts.pooled[reason] = (counts.pooled[reason] || 0) + 1;
}

// The handle prototypes of every codec family this Node has (one throwaway
// stream each; Gzip and Inflate share the zlib handle class).
function handlePrototypes(zlib) {
  const makers = ['createGzip', 'createBrotliCompress', 'createBrotliDecompress', 'createZstdCompress', 'createZstdDecompress'];
  const protos = [];
  for (const name of makers) {
    if (typeof zlib[name] !== 'function') continue;
    const stream = zlib[name]();
    const proto = Object.getPrototypeOf(stream._handle);
    stream.close();
    const fit = typeof proto.init === 'function' && typeof proto.write === 'function' && typeof proto.writeSync === 'function';
    if (fit && !protos.includes(proto)) protos.push(proto);
  }
  return protos;
}

// `native()` returns the addon or null (asked at the first job).
function planInlineJobs(zlib, native) {
  const patches = [];
  for (const proto of handlePrototypes(zlib)) {
    const owner = `zlib.${proto.constructor.name}`;
    patches.push({ target: proto, owner, name: 'init', make: makeInit });
    patches.push({ target: proto, owner, name: 'write', make: (orig) => makeWrite(orig, native) });
  }
  return patches;
}

// init() is called once per stream, in its constructor: the completion Node
// passes it is kept for inline jobs, with the async context of the stream's
// creation (where the handle's own callbacks run).
function makeInit(originalInit) {
  return function init() {
    for (let i = 0; i < arguments.length; i++) {
      if (typeof arguments[i] === 'function') {
        this[kCompletion] = arguments[i];
        this[kResource] = new AsyncResource('HttpFastpathZlib');
        break;
      }
    }
    return Reflect.apply(originalInit, this, arguments);
  };
}

// The error writeSync reported through onerror during the current inline
// job (writeSync runs the codec synchronously, one job at a time), or null.
let failure = null;
function captureError(message, errno, code) {
  failure = [message, errno, code];
}
const NO_ARGS = Object.freeze([]);

function makeWrite(originalWrite, native) {
  let addon; // the addon, asked at the first small job
  let ready; // whether completions can be delivered
  return function write(flush, input, inOff, inLen, out, outOff, outLen) {
    const completion = this[kCompletion];
    if (completion === undefined) {
      pooled('unknownHandle');
      return Reflect.apply(originalWrite, this, arguments);
    }
    // A continuation (inOff > 0) passes the rest of input already counted.
    const unflushed = (this[kUnflushed] || 0) + (inOff === 0 ? inLen : 0);
    this[kUnflushed] = flush === 0 ? unflushed : 0;
    if (!enabled) {
      pooled('poolMode');
      return Reflect.apply(originalWrite, this, arguments);
    }
    if (unflushed > MAX_INPUT || outLen > MAX_OUTPUT) {
      pooled('large');
      return Reflect.apply(originalWrite, this, arguments);
    }
    if (ready === undefined) {
      addon = native();
      ready = nextPoll.available(addon);
    }
    if (!ready) {
      pooled('noNative');
      return Reflect.apply(originalWrite, this, arguments);
    }
    // An error is reported through handle.onerror, synchronously by
    // writeSync: keep it for the completion's turn, as the pool would.
    const onerror = this.onerror;
    failure = null;
    this.onerror = captureError;
    try {
      this.writeSync(flush, input, inOff, inLen, out, outOff, outLen);
    } finally {
      this.onerror = onerror;
    }
    counts.inline++;
    // Codec state freed here stays in the loop thread's arena: given back
    // once a second while jobs run inline (lib/setup/allocator.js).
    allocator.trimSoon(addon);
    if (failure === null) nextPoll.deliver(this[kResource], completion, this, NO_ARGS);
    else nextPoll.deliver(this[kResource], onerror, this, failure);
  };
}

function snapshot() {
  return { inline: counts.inline, pooled: { ...counts.pooled }, trims: allocator.trims() };
}

module.exports = { planInlineJobs, setEnabled, snapshot, MAX_INPUT, MAX_OUTPUT };
