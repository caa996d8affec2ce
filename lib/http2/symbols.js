'use strict';
// The compat layer's internal symbols the HTTP/2 patches use, read from
// Http2ServerResponse itself, or null when this Node's compat layer is not
// the shape the patches were written against (then http2 stays stock).

const { EventEmitter } = require('events');

function ownSymbol(object, description) {
  return Object.getOwnPropertySymbols(object).find((s) => s.description === description);
}

function compatSymbols(Http2ServerResponse) {
  const proto = Http2ServerResponse.prototype;
  const probe = new Http2ServerResponse(new EventEmitter());
  const symbols = {
    kBeginSend: ownSymbol(proto, 'begin-send'),
    kState: ownSymbol(probe, 'state'),
    kHeaders: ownSymbol(probe, 'headers'),
    kTrailers: ownSymbol(probe, 'trailers'),
    kStream: ownSymbol(probe, 'stream'),
  };
  if (Object.values(symbols).some((s) => s === undefined)) return null;
  const beginSend = proto[symbols.kBeginSend];
  if (typeof beginSend !== 'function' || !/waitForTrailers:\s*true/.test(String(beginSend))) return null;
  const state = probe[symbols.kState];
  if (typeof state !== 'object' || !('ending' in state) || !('sendDate' in state) || !('statusCode' in state)) return null;
  return symbols;
}

module.exports = { compatSymbols, ownSymbol };
