'use strict';
// The compat layer's internal symbols the HTTP/2 patches use, read once from
// Http2ServerResponse itself (its prototype and a probe instance), and
// whether the layer is the shape the patches were written against: when it
// is not, http2 stays stock.

const { EventEmitter } = require('events');
const { symbolsOf } = require('../response/adapters');

function compatSymbols(Http2ServerResponse) {
  const methods = symbolsOf(Http2ServerResponse.prototype);
  const probe = new Http2ServerResponse(new EventEmitter());
  const own = symbolsOf(probe);
  const symbols = {
    kBeginSend: methods['begin-send'],
    kSetHeader: methods.setHeader,
    kState: own.state,
    kHeaders: own.headers,
    kTrailers: own.trailers,
    kStream: own.stream,
  };
  symbols.recognised = isRecognised(Http2ServerResponse.prototype, probe, symbols);
  return symbols;
}

function isRecognised(proto, probe, { kBeginSend, kState, kHeaders, kTrailers, kStream }) {
  if ([kBeginSend, kState, kHeaders, kTrailers, kStream].includes(undefined)) return false;
  const beginSend = proto[kBeginSend];
  if (typeof beginSend !== 'function' || !/waitForTrailers:\s*true/.test(String(beginSend))) return false;
  const state = probe[kState];
  return typeof state === 'object' && 'ending' in state && 'sendDate' in state && 'statusCode' in state;
}

module.exports = { compatSymbols };
