'use strict';
// What the running Node does, read from it once at install, never guessed
// from its version number: the internal symbols on an OutgoingMessage, how
// its own end() writes and finishes a probe message, the shape of its header
// store, its header validators, and whether each stock function a fast path
// stands in for is one of the sources the package was verified against
// (verified-sources.json, made by scripts/node-versions.js). A part whose
// sources or probes match no verified form stays stock, with its reason.
// See ../shared/NODE-VERSIONS.md and docs/node-versions.md.

const http = require('http');
const { kUniqueHeaders } = require('_http_outgoing');
const { textDigest } = require('../frameworks/source-digest');
const { RE_TOKEN, RE_INVALID_VALUE } = require('./http-rules');

// The stock functions each part of the response path stands in for or
// copies, by where they live. The part's digest is the sha1 of their source
// texts, in this order, joined by newlines.
const PARTS = {
  head: ['OutgoingMessage#_storeHeader', 'ServerResponse#writeHead', 'ServerResponse#_implicitHeader'],
  end: ['OutgoingMessage#end', 'OutgoingMessage#_send', 'OutgoingMessage#_writeRaw', 'OutgoingMessage#_finish', 'ServerResponse#_finish'],
  headers: ['OutgoingMessage#setHeader', 'OutgoingMessage#getHeader', 'OutgoingMessage#removeHeader', 'OutgoingMessage#appendHeader'],
};
const CLASSES = { OutgoingMessage: http.OutgoingMessage, ServerResponse: http.ServerResponse };

function symbolsOf(obj) {
  const found = {};
  for (const sym of Object.getOwnPropertySymbols(obj)) found[sym.description] = sym;
  return found;
}

function stockFunction(where) {
  const [cls, name] = where.split('#');
  return CLASSES[cls].prototype[name];
}

// The digest of a part's stock functions, or null when one is missing.
function partDigest(part) {
  const texts = [];
  for (const where of PARTS[part]) {
    const fn = stockFunction(where);
    if (typeof fn !== 'function') return null;
    texts.push(Function.prototype.toString.call(fn));
  }
  return textDigest(texts.join('\n'));
}

// A probe message over a socket that records what Node's end() hands it,
// with `implicitHeader` as its _implicitHeader: a head of its own, so the
// probe goes through no function but end()'s.
function recordingMessage(implicitHeader) {
  const msg = new http.OutgoingMessage();
  const writes = [];
  msg.socket = {
    _httpMessage: msg, writable: true, destroyed: false, _hadError: false, writableLength: 0,
    _writableState: { corked: 0 },
    get writableCorked() { return this._writableState.corked; },
    cork() { this._writableState.corked++; },
    uncork() { if (this._writableState.corked > 0) this._writableState.corked--; },
    write(data, encoding, callback) { writes.push({ data, encoding, callback }); return true; },
  };
  msg._implicitHeader = implicitHeader;
  return { msg, writes };
}

// Node's own end(body, cb) on a probe message: how many writes it leaves in
// the cork, and, once its last write's callback is called as a socket calls
// it, whether `cb` runs as a 'finish' listener (with no argument, after the
// listeners added before end()) or from a queue (with null, before
// 'finish'). Null when Node does something else.
function probeEnd(body) {
  const { msg, writes } = recordingMessage(function _implicitHeader() { this._header = 'HTTP/1.1 200 OK\r\n\r\n'; });
  const order = [];
  msg.on('finish', () => order.push('finish'));
  msg.end(body, function cb(...args) { order.push(args.length === 0 ? 'cb()' : `cb(${args[0]})`); });
  const last = writes[writes.length - 1];
  if (last === undefined || typeof last.callback !== 'function') return null;
  last.callback();
  const seen = order.join(',');
  const endCallbacks = seen === 'finish,cb()' ? 'finishListener' : seen === 'cb(null),finish' ? 'queued' : null;
  if (endCallbacks === null) return null;
  return { writes: writes.length, endCallbacks };
}

// Node's end(body) on a message whose head turns out to allow no body (a
// 204): the head is rendered first, then the body is dropped. The fast end()
// renders the head itself and hands such a message to Node's end(); 20.2.0
// looked at _hasBody before rendering the head (and so sent a 204's body),
// where that hand-over would not be exact.
function rendersHeadBeforeBodyCheck() {
  let heads = 0;
  const { msg, writes } = recordingMessage(function _implicitHeader() {
    heads++;
    this._hasBody = false;
    this._header = 'HTTP/1.1 204 No Content\r\n\r\n';
  });
  msg.end('probe-body');
  return heads === 1 && writes.every((w) => !String(w.data).includes('probe-body'));
}

// Whether Node's own validators accept every character the fast paths take as
// a plain header name or value (http-rules.js); a character class is all a
// validator of either kind (regex or lookup table) looks at. Asked through
// _http_common's checks, the ones validateHeaderName/Value call (strict: one
// argument), which answer without throwing: 200-odd throws cost ~1.5 ms.
function validatorsAgree() {
  const { _checkIsHttpToken: isToken, _checkInvalidHeaderChar: isInvalid } = require('_http_common');
  const validName = typeof isToken === 'function' ? isToken : (ch) => !throws(() => http.validateHeaderName(ch));
  const invalidValue = typeof isInvalid === 'function' ? isInvalid : (ch) => throws(() => http.validateHeaderValue('x', ch));
  for (let c = 0; c < 256; c++) {
    const ch = String.fromCharCode(c);
    if (RE_TOKEN.test(ch) && !validName(ch)) return false;
    if (!RE_INVALID_VALUE.test(ch) && invalidValue(ch)) return false;
  }
  return true;
}

function throws(fn) {
  try {
    fn();
    return false;
  } catch {
    return true;
  }
}

// Node's header store after its own setHeader: a null-prototype literal
// (dictionary mode) or an instance of its own fast-mode container class.
function probeStore(kOutHeaders) {
  const msg = new http.OutgoingMessage();
  msg.setHeader('X-Probe', 'x');
  const store = msg[kOutHeaders];
  if (store === null || typeof store !== 'object' || store['x-probe']?.[1] !== 'x') return null;
  return Object.getPrototypeOf(store) === null ? 'literal' : 'container';
}

// `verified` maps each part to { digest: [versions] } (verified-sources.json).
function makeAdapter(verified = require('./verified-sources.json')) {
  const sym = symbolsOf(new http.OutgoingMessage());
  const adapter = {
    kOutHeaders: sym.kOutHeaders,
    kCorked: sym.corked,
    kErrored: sym.errored,
    kSocket: sym.kSocket,
    kChunkedBuffer: sym.kChunkedBuffer,
    kWritableFinished: sym.kWritableFinished,
    kEndCallbacks: sym.kEndCallbacks,
    kFlushError: sym.kFlushError,
    kUniqueHeaders,
    // How many socket writes Node's end() leaves in one cork, per body kind.
    endWrites: null,
    // 'finishListener' (end callbacks are once('finish') listeners) or
    // 'queued' (called with null before 'finish'; kEndCallbacks).
    endCallbacks: null,
    // 'literal' or 'container' (Node's own fast-mode store class).
    headerStore: null,
    // part -> { on, reason, digest }
    parts: {},
  };
  for (const name of ['kOutHeaders', 'kCorked', 'kErrored']) {
    if (typeof adapter[name] !== 'symbol') throw new Error(`Node ${process.version}: internal symbol ${name} not found`);
  }
  // Sources first: a probe runs only through Node's own functions, never
  // through a wrapper someone put in their place (an APM agent's).
  for (const part of Object.keys(PARTS)) {
    const digest = partDigest(part);
    let reason = null;
    if (digest === null) reason = `a stock function is missing (${PARTS[part].join(', ')})`;
    else if (!Object.hasOwn(verified[part] ?? {}, digest)) reason = `unverified source (${PARTS[part].join(', ')}: sha1 ${digest.slice(0, 12)})`;
    adapter.parts[part] = { on: reason === null, reason, digest };
  }
  if ((adapter.parts.head.on || adapter.parts.headers.on) && !validatorsAgree()) {
    const reason = "Node's header validators reject characters the fast paths accept";
    leaveStock(adapter, 'head', reason);
    leaveStock(adapter, 'headers', reason);
  }
  if (adapter.parts.headers.on) readStore(adapter);
  if (adapter.parts.end.on) readEnd(adapter);
  return adapter;
}

function leaveStock(adapter, part, reason) {
  if (adapter.parts[part].on) adapter.parts[part] = { ...adapter.parts[part], on: false, reason };
}

function readStore(adapter) {
  adapter.headerStore = probeStore(adapter.kOutHeaders);
  if (adapter.headerStore === null) leaveStock(adapter, 'headers', 'unrecognised header store');
}

function readEnd(adapter) {
  if (!rendersHeadBeforeBodyCheck()) {
    leaveStock(adapter, 'end', "Node's end() looks at the body before it renders the head (20.2.0's form)");
    return;
  }
  const none = probeEnd(undefined);
  const string = probeEnd('x');
  const buffer = probeEnd(Buffer.from('x'));
  const queuedSymbols = ['kWritableFinished', 'kEndCallbacks', 'kFlushError'].every((n) => typeof adapter[n] === 'symbol');
  if (none === null || string === null || buffer === null) {
    leaveStock(adapter, 'end', "Node's end() wrote or finished a probe message in an unrecognised way");
  } else if (none.endCallbacks !== string.endCallbacks || none.endCallbacks !== buffer.endCallbacks ||
             (none.endCallbacks === 'queued' && (!queuedSymbols || typeof adapter.kSocket !== 'symbol'))) {
    leaveStock(adapter, 'end', "Node's end() callbacks take an unrecognised form");
  } else {
    adapter.endCallbacks = none.endCallbacks;
    adapter.endWrites = { none: none.writes, string: string.writes, buffer: buffer.writes };
  }
}

module.exports = { makeAdapter, symbolsOf, partDigest, PARTS };
