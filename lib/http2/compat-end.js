'use strict';
// Http2ServerResponse.end() without the trailers round trip.
//
// Stock compat responses always ask for trailers (respond() with
// waitForTrailers: true): when the body's last DATA frame is out, nghttp2
// calls into JS ('wantTrailers'), the compat layer answers
// stream.sendTrailers(res[kTrailers]) and, one setImmediate later, the
// native side sends an empty DATA frame carrying END_STREAM because there
// were none. When end() is what sends the headers and no trailer has been
// set, the response is complete at that call, so it is sent the way the core
// API sends it: respond() without waitForTrailers and END_STREAM on the last
// DATA frame. The same headers and body in one frame fewer, without the
// round trip (docs/http2.md).
//
// Trailers set after end() could still be sent by stock, until the last
// DATA frame leaves; a response ended this way cannot send them: setTrailer
// warns once and counts it (status().http2.lateTrailers). Responses whose
// headers went out before end() (writeHead, write, flushHeaders) keep the
// stock round trip.

const { fastStore, isEmpty } = require('./header-store');

let warnedLateTrailers = false;

function warnLateTrailers() {
  if (warnedLateTrailers) return;
  warnedLateTrailers = true;
  process.emitWarning('an HTTP/2 compat response had trailers set after end() sent it complete; they are not sent '
    + '(set trailers before end(), or run with HTTP_FASTPATH_HTTP2=0)',
  { type: 'HttpFastpathWarning', code: 'HTTP_FASTPATH_LATE_TRAILERS' });
}

// `symbols`: lib/http2/symbols.js, of a recognised compat layer;
// counters.lateTrailers counts trailers set too late to be sent.
function planCompatEnd(proto, { kBeginSend, kState, kHeaders, kTrailers, kStream }, counters) {
  // The response whose end() is running, when that end() will send the
  // headers of a response without trailers.
  let completing = null;
  return [
    {
      target: proto, owner: 'Http2ServerResponse', name: 'end',
      make: (originalEnd) => function end(chunk, encoding, cb) {
        const stream = this[kStream];
        if (completing !== null || stream === undefined || stream.headersSent || !isEmpty(this[kTrailers])) {
          return Reflect.apply(originalEnd, this, arguments);
        }
        completing = this;
        try {
          return Reflect.apply(originalEnd, this, arguments);
        } finally {
          completing = null;
        }
      },
    },
    {
      target: proto, owner: 'Http2ServerResponse', name: kBeginSend, label: '[begin-send]',
      make: (originalBeginSend) => function beginSend() {
        const headers = fastStore(this, kHeaders);
        if (completing !== this) return Reflect.apply(originalBeginSend, this, arguments);
        const state = this[kState];
        headers[':status'] = state.statusCode;
        state.trailersSkipped = true;
        this[kStream].respond(headers, { endStream: state.ending, waitForTrailers: false, sendDate: state.sendDate });
      },
    },
    {
      target: proto, owner: 'Http2ServerResponse', name: 'setTrailer',
      make: (originalSetTrailer) => function setTrailer(name, value) {
        const result = Reflect.apply(originalSetTrailer, this, arguments);
        if (this[kState].trailersSkipped === true) {
          counters.lateTrailers++;
          warnLateTrailers();
        }
        return result;
      },
    },
  ];
}

module.exports = { planCompatEnd };
