'use strict';
// What the body parsers ask for on every request, answered for less where the
// answer is the same: each is a stand-in handed to one requiring file only
// (lib/frameworks/package-loads.js), never put in require.cache, so every
// other user of the dependency gets it as it is.
//
// - type-is, for body-parser's type check (2.x lib/utils.js, 1.x
//   lib/types/*.js): `typeis(req, 'application/json')` parses and matches the
//   request's Content-Type on every request; for a type written as a media
//   type its result depends only on that header's value and the type string,
//   so it is kept per (type, value).
// - iconv-lite, for raw-body's decoder (body-parser's and co-body's reads):
//   a UTF-8 decoder that returns a chunk that is whole, valid UTF-8 as
//   `toString` gives it, less a leading BOM as iconv strips it, and hands
//   the stream to iconv's own decoder at the first chunk that is not.
//
// Each stand-in is made only for a version whose source is known (digests
// below) and answers through the real module while the package is not
// installed (uninstall()). Measured: docs/request-bodies.md.

const { isUtf8 } = require('buffer');
const { sourceDigest, fileDigest } = require('./source-digest');

// type-is 1.6.16-2.0.0 and 2.0.1-2.1.0: the module's function
// (typeofrequest: `hasbody(req)`, then `typeis(req.headers['content-type'],
// types)`) and typeis.is, pure functions of the header value and the types.
const TYPEIS_REQUEST = new Set(['86e89595512bcb71c113556962f08208cf45ec4d', 'bde23052acbcb57f48783c435c137a4688d2ba56']);
const TYPEIS_IS = new Set(['092f1b8f02a70e5810dc798529db8e4c13f95ee6', '0464831fcc800765e404480d67ff1098c469a4ec']);
// raw-body 2.5.0, 2.5.1 and 2.5.2-3.0.2 (index.js, one text for all five):
// `buffer += decoder.write(chunk)` per chunk and `buffer + (decoder.end() || '')`.
const RAW_BODY = new Set(['8ec6110b43f87331d9f7d6d1a6f69627a6961efd', 'a08c4d7fbf4471735d9f9582f58a123523efaeb0', '8a4cba78d978452aa8c722f77ab07c0da12b35e1']);

// A type-is result is kept for this many types, and this many header values
// of each: beyond, the real type-is answers.
const MAX_TYPES = 64;
const MAX_VALUES = 256;

// Whether type-is's answer for `type` depends on strings alone. A type with a
// slash is matched as it is, '+json' and the two names below are fixed
// expansions; any other type is an extension that type-is looks up in
// mime-types' table, which an app may change at run time.
const tableFree = (type) => type.includes('/') || type[0] === '+' || type === 'urlencoded' || type === 'multipart';

let active = false;
const counters = {
  typeIs: { adopted: 0, unknownVersion: 0 },
  rawBody: { adopted: 0, unknownVersion: 0 },
  decodedByToString: 0,
  decodedByIconv: 0,
};

function setActive(on) {
  active = on;
}

// --- type-is ---------------------------------------------------------------

function typeIsFor(typeis) {
  if (typeof typeis !== 'function' || typeof typeis.is !== 'function' || typeof typeis.hasBody !== 'function' ||
      !TYPEIS_REQUEST.has(sourceDigest(typeis)) || !TYPEIS_IS.has(sourceDigest(typeis.is))) {
    counters.typeIs.unknownVersion++;
    return typeis;
  }
  counters.typeIs.adopted++;
  const hasBody = typeis.hasBody;
  const byType = new Map(); // type string -> Map(Content-Type value -> result)

  function typeofrequest(req, types) {
    if (!active || arguments.length !== 2 || typeof types !== 'string' || !tableFree(types)) return Reflect.apply(typeis, this, arguments);
    if (!hasBody(req)) return null;
    const value = req.headers['content-type'];
    if (typeof value !== 'string') return typeis(req, types);
    let results = byType.get(types);
    if (results === undefined) {
      if (byType.size >= MAX_TYPES) return typeis(req, types);
      results = new Map();
      byType.set(types, results);
    }
    let result = results.get(value);
    if (result === undefined) {
      result = typeis(req, types);
      if (results.size < MAX_VALUES) results.set(value, result);
    }
    return result;
  }
  return Object.assign(typeofrequest, typeis);
}

// --- iconv-lite, as raw-body uses it ---------------------------------------

// Behaves as iconv's BOM-stripping UTF-8 decoder given the same chunks.
class Utf8Decoder {
  constructor(iconv, encoding) {
    this.iconv = iconv;
    this.encoding = encoding;
    this.real = null; // iconv's own decoder, from the first chunk not whole and valid
    this.started = false; // text returned yet (iconv strips a BOM only before that)
  }

  write(chunk) {
    if (this.real === null) {
      if (Buffer.isBuffer(chunk) && isUtf8(chunk)) {
        if (chunk.length === 0) return '';
        const text = chunk.utf8Slice(0, chunk.length);
        if (this.started) return text;
        this.started = true;
        counters.decodedByToString++;
        return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      }
      // Nothing is pending in a decoder that has only seen whole characters.
      this.real = this.started ? this.iconv.getDecoder(this.encoding, { stripBOM: false }) : this.iconv.getDecoder(this.encoding);
      counters.decodedByIconv++;
    }
    return this.real.write(chunk);
  }

  end() {
    return this.real === null ? '' : this.real.end();
  }
}

// Whether the stand-in gives what iconv's decoder gives for chunks that
// exercise the BOM and a switch half-way (checked once per iconv copy).
function agreesWithIconv(iconv) {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const cases = [
    [Buffer.concat([bom, Buffer.from('{"a":"é"}')])],
    [Buffer.alloc(0), bom, Buffer.from('x'), Buffer.from([0xe2, 0x82]), Buffer.from([0xac, 0x41])],
    [Buffer.from('ab'), Buffer.concat([bom, Buffer.from([0xff])]), Buffer.from('c')],
    [Buffer.from([0xf0, 0x9f]), Buffer.from([0x98, 0x80])],
  ];
  const { decodedByToString, decodedByIconv } = counters; // the check's own decoding is not counted
  try {
    for (const chunks of cases) {
      const real = iconv.getDecoder('utf-8');
      const ours = new Utf8Decoder(iconv, 'utf-8');
      let a = '';
      let b = '';
      for (const chunk of chunks) {
        a += real.write(chunk);
        b += ours.write(chunk);
      }
      if (a + (real.end() || '') !== b + (ours.end() || '')) return false;
    }
    return true;
  } catch {
    return false;
  } finally {
    counters.decodedByToString = decodedByToString;
    counters.decodedByIconv = decodedByIconv;
  }
}

const iconvChecked = new WeakMap(); // iconv module -> agrees

// iconv-lite as raw-body's index.js (file `rawBodyFile`) requires it.
function iconvFor(iconv, rawBodyFile) {
  const known = RAW_BODY.has(fileDigest(rawBodyFile));
  if (known && typeof iconv?.getDecoder === 'function' && !iconvChecked.has(iconv)) iconvChecked.set(iconv, agreesWithIconv(iconv));
  if (!known || iconvChecked.get(iconv) !== true) {
    counters.rawBody.unknownVersion++;
    return iconv;
  }
  counters.rawBody.adopted++;
  const standIn = Object.create(iconv);
  standIn.getDecoder = function getDecoder(encoding, options) {
    if (active && options === undefined && (encoding === 'utf-8' || encoding === 'utf8')) return new Utf8Decoder(iconv, encoding);
    return Reflect.apply(iconv.getDecoder, iconv, arguments);
  };
  return standIn;
}

function snapshot() {
  return { typeIs: { ...counters.typeIs }, rawBody: { ...counters.rawBody }, decodedByToString: counters.decodedByToString, decodedByIconv: counters.decodedByIconv };
}

module.exports = { typeIsFor, iconvFor, setActive, snapshot };
