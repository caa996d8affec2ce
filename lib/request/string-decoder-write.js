'use strict';
// StringDecoder#write for a chunk that is whole, valid UTF-8 while nothing is
// pending: the same string, by Buffer#utf8Slice, without Node's native decode.
//
// Why: a StringDecoder keeps its state in a 7-byte Buffer.alloc'd in its
// constructor, small enough for V8 to keep inside the JS heap. The first time
// native code is handed it (the first write()), V8 must move it out of the
// heap, which costs ~0.8-1 us on every line (20-26), against ~0.1 us for the
// decoding itself. Every req.setEncoding('utf8') makes a fresh decoder, so
// every request read as text paid it (measured: docs/request-bodies.md).
//
// Exactness: a chunk that isUtf8() accepts ends on a character, so Node's
// decoder, with nothing buffered, would return the same text and leave its
// state as it is; the state is not touched here either. Anything else (another
// encoding, bytes pending, an incomplete or invalid sequence, an empty or
// non-Buffer view, a string, a wrong `this`) goes to Node's write.

const { StringDecoder } = require('string_decoder');
const { isUtf8 } = require('buffer');
const stats = require('../setup/stats');

const utf8Slice = Buffer.prototype.utf8Slice;
const BufferPrototype = Buffer.prototype;

// Node's decoder state layout (src/string_decoder.h), checked on real
// decoders before anything is patched: bytes 0-3 hold an incomplete
// character, then the missing and buffered byte counts, then the encoding.
const MISSING_BYTES = 4;
const BUFFERED_BYTES = 5;
const ENCODING_FIELD = 6;
// Past this, a chunk's decoding costs far more than moving the state out of
// the heap does (~0.8 us), and the extra validation pass would not pay.
const MAX_CHUNK = 8 * 1024;

// The decoder's state symbol and UTF-8's code, or null when this Node's
// decoder does not look as described above.
function inspectDecoder() {
  const utf8 = new StringDecoder('utf8');
  const [kState] = Object.getOwnPropertySymbols(utf8);
  const state = kState === undefined ? undefined : utf8[kState];
  if (!(state instanceof Uint8Array) || state.length !== 7) return null;
  const latin1 = new StringDecoder('latin1')[kState];
  if (state[ENCODING_FIELD] === latin1[ENCODING_FIELD]) return null;
  // A lone lead byte of a 3-byte character: one buffered, two missing.
  if (utf8.write(Buffer.from([0xe2])) !== '' || state[0] !== 0xe2 || state[MISSING_BYTES] !== 2 ||
      state[BUFFERED_BYTES] !== 1 || utf8.lastNeed !== 2 || utf8.lastTotal !== 3) return null;
  if (utf8.end() !== '\ufffd' || state[MISSING_BYTES] !== 0 || state[BUFFERED_BYTES] !== 0) return null;
  return { kState, utf8Code: state[ENCODING_FIELD] };
}

// The replacement for StringDecoder.prototype.write, or null if Node's
// decoder is not the one described here.
function makeWrite(original) {
  const decoder = inspectDecoder();
  if (decoder === null) return null;
  const { kState, utf8Code } = decoder;
  // The decoder whose write was served here last: its next write goes to
  // Node's, whose cost per chunk is lower once the state is out of the heap
  // (checking every chunk of one long stream here would cost +60-150 ns per
  // small chunk, +10-30 % at 64 KB). One slot, not a WeakSet: adding each
  // request's decoder to a WeakSet cost 200-400 ns, most of the gain.
  let lastServed = null;
  const cap = MAX_CHUNK;
  return function write(buf) {
    // `this` is read only for a Buffer, as Node's write reads it.
    const state = typeof buf === 'object' && buf !== null && Object.getPrototypeOf(buf) === BufferPrototype &&
      this !== null && this !== undefined ? this[kState] : undefined;
    if (state !== undefined && state[ENCODING_FIELD] === utf8Code && state[BUFFERED_BYTES] === 0 &&
        state[MISSING_BYTES] === 0 && buf.length !== 0 && buf.length <= cap && this !== lastServed && isUtf8(buf)) {
      lastServed = this;
      stats.count('decoder.fast');
      return Reflect.apply(utf8Slice, buf, [0, buf.length]);
    }
    return Reflect.apply(original, this, arguments);
  };
}

// The patch, for lib/setup/patch.js: none where Node's decoder differs.
function planDecoderWrite() {
  const original = StringDecoder.prototype.write;
  const replacement = makeWrite(original);
  if (replacement === null) return [];
  return [{ target: StringDecoder.prototype, owner: 'StringDecoder', name: 'write', make: () => replacement }];
}

module.exports = { planDecoderWrite, makeWrite };
