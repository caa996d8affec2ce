'use strict';
// What differs between the supported Node release lines, found once at load
// time: the internal symbols on OutgoingMessage instances and the flags that
// select each version's behaviour. See ../shared/NODE-INTERNALS.md.

const http = require('http');
const { kUniqueHeaders } = require('_http_outgoing');

const SUPPORTED = [20, 22, 24, 26];

function symbolsOf(obj) {
  const found = {};
  for (const sym of Object.getOwnPropertySymbols(obj)) found[sym.description] = sym;
  return found;
}

function makeAdapter(major = Number(process.versions.node.split('.')[0])) {
  if (!SUPPORTED.includes(major)) return null;
  const sym = symbolsOf(new http.OutgoingMessage());
  const adapter = {
    major,
    kOutHeaders: sym.kOutHeaders,
    kCorked: sym.corked,
    kErrored: sym.errored,
    kSocket: sym.kSocket,                   // 22+
    kChunkedBuffer: sym.kChunkedBuffer,     // 22+
    kWritableFinished: sym.kWritableFinished, // 24+
    kEndCallbacks: sym.kEndCallbacks,       // 24+
    kFlushError: sym.kFlushError,           // 24+
    kUniqueHeaders,
    // 24+ attach 'finish' to the body write and call end callbacks with null.
    finishOnBodyWrite: major >= 24,
    // 26 renders Keep-Alive max as ~~N, 20-24 as the raw value.
    keepAliveMaxInt: major >= 26,
    // 26 already stores headers in a fast-mode OutgoingHeaders container and
    // presets the listener table.
    hasFastHeaderContainer: major >= 26,
    hasListenerPreset: major >= 26,
  };
  const required = ['kOutHeaders', 'kCorked', 'kErrored'];
  if (major >= 22) required.push('kSocket', 'kChunkedBuffer');
  if (major >= 24) required.push('kWritableFinished', 'kEndCallbacks', 'kFlushError');
  for (const name of required) {
    if (typeof adapter[name] !== 'symbol') {
      throw new Error(`Node ${process.version}: internal symbol ${name} not found`);
    }
  }
  return adapter;
}

module.exports = { makeAdapter, symbolsOf, SUPPORTED };
