'use strict';
// Seeded random response programs for the differential fuzzer: a request
// (method, HTTP version) and a sequence of operations on the ServerResponse
// with valid, odd and invalid names, values, status codes, chunks and encodings.

function makeRandom(seed) {
  // mulberry32: neighbouring seeds give unrelated streams.
  let s = (Math.imul(seed >>> 0, 0x9e3779b1) ^ 0x6d2b79f5) >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  const chance = (p) => next() < p;
  return { next, int, pick, chance };
}

const NAMES = ['Content-Type', 'content-type', 'X-Custom', 'x-custom', 'Set-Cookie', 'Cookie', 'Connection',
  'Content-Length', 'Transfer-Encoding', 'Date', 'Content-Disposition', 'Keep-Alive', 'Expect', 'Trailer',
  'ETag', 'Cache-Control', 'Vary', '3', '20', 'X-A', 'X-a-very-long-header-name-indeed'];
const BAD_NAMES = ['', 'a b', 'é', 'x\n', 'a:b', '(x)'];
const VALUES = ['text/plain', 'close', 'keep-alive', 'chunked', 'gzip, chunked', '0', '5', '12', 'timeout=3',
  'attachment; filename="a.txt"', 'inline; filename="é.txt"', 'a=1; Path=/', 'é ÿ', '', ' padded ', 'x'.repeat(2000),
  '100-continue', 'X-T', 'Tue, 01 Dec 2026 00:00:00 GMT'];
const BAD_VALUES = ['a\r\nb', 'nul\0', 'wide\u0100', '😀', undefined];
const CHUNKS = ['', 'hello', 'héllo ✓', 'x'.repeat(5000), 'Ā'];
const ENCODINGS = [undefined, undefined, 'utf8', 'latin1', 'utf-8', 'hex', 'ascii', 'base64', 'bogus'];
const STATUS = [200, 200, 201, 204, 304, 404, 500, 999, 99, 1000, '200', 103];
const REASONS = [undefined, 'OK', 'Fine', 'bad\nreason', ''];

function value(r) {
  const roll = r.next();
  if (roll < 0.6) return r.pick(VALUES);
  if (roll < 0.7) return r.int(1000);
  if (roll < 0.85) { const n = r.int(4); const a = []; for (let i = 0; i < n; i++) a.push(r.pick(VALUES)); return a; }
  if (roll < 0.95) return r.pick(BAD_VALUES);
  return r.chance(0.5) ? true : null;
}
const name = (r) => (r.chance(0.93) ? r.pick(NAMES) : r.pick(BAD_NAMES));
function chunk(r) {
  if (r.chance(0.25)) return Buffer.from(r.pick(CHUNKS));
  if (r.chance(0.05)) return new Uint8Array([104, 105]);
  return r.pick(CHUNKS);
}

function headersArg(r) {
  if (r.chance(0.3)) return undefined;
  const n = r.int(4);
  if (r.chance(0.3)) { const a = []; for (let i = 0; i < n; i++) a.push(name(r), value(r)); return a; }
  const o = {};
  for (let i = 0; i < n; i++) o[name(r)] = value(r);
  return o;
}

function operation(r) {
  const roll = r.int(100);
  if (roll < 30) return ['setHeader', name(r), value(r)];
  if (roll < 38) return ['appendHeader', name(r), value(r)];
  if (roll < 45) return ['removeHeader', r.pick(NAMES)];
  if (roll < 52) return ['writeHead', r.pick(STATUS), r.pick(REASONS), headersArg(r)];
  if (roll < 57) return ['write', ...chunkAndEncoding(r, false)];
  if (roll < 60) return ['flushHeaders'];
  if (roll < 66) return ['statusCode', r.pick(STATUS)];
  if (roll < 69) return ['statusMessage', r.pick(REASONS)];
  if (roll < 71) return ['sendDate', false];
  if (roll < 74) return ['getHeaders'];
  return ['end', ...(r.chance(0.8) ? chunkAndEncoding(r) : [undefined, r.pick(ENCODINGS)])];
}

// Programs that crash stock Node itself are not generated: it aborts (a C++
// assertion) on an odd-length 'hex' string written through writev, so 'hex'
// always gets well-formed hex; and on 24+ a chunked write() with an unknown
// encoding throws later from a nextTick, so 'bogus' is only used with end().
function chunkAndEncoding(r, unknownAllowed = true) {
  let encoding = r.pick(ENCODINGS);
  if (encoding === 'bogus' && !unknownAllowed) encoding = 'utf8';
  if (encoding === 'hex') return [r.chance(0.5) ? '68656c6c6f' : '', encoding];
  return [chunk(r), encoding];
}

// One case: the request line and the list of operations (ending in end()
// most of the time, so most responses complete).
function makeCase(seed) {
  const r = makeRandom(seed);
  const method = r.chance(0.15) ? 'HEAD' : 'GET';
  const version = r.chance(0.1) ? '1.0' : '1.1';
  const ops = [];
  const n = 1 + r.int(7);
  for (let i = 0; i < n; i++) ops.push(operation(r));
  if (r.chance(0.85)) ops.push(['end', ...(r.chance(0.7) ? chunkAndEncoding(r) : [undefined, r.pick(ENCODINGS)])]);
  return { seed, request: `${method} / HTTP/${version}\r\nHost: x\r\n\r\n`, ops };
}

module.exports = { makeCase, makeRandom };
