'use strict';
// ServerResponse.prototype.end() fast path. When the response owns a plain,
// uncorked socket and ends with a utf8/latin1 string, a Uint8Array or
// nothing, the head (rendered through Node's own writeHead/_storeHeader
// chain) and the body go to the socket in one write whose callback finishes
// the response: no corking, no trailing empty write, no outputData queue.
// Every other call is Node's own end(); so is any call where a user or a
// framework has replaced writeHead/_implicitHeader/_send on the instance.

const net = require('net');
const stats = require('../setup/stats');
const { makeFinisher } = require('./finish');
const { makeImplicitHeader } = require('./implicit-header');

// A Buffer body up to this size goes out as one latin1 string with the head
// (latin1 maps each byte to itself, so the bytes are the same), instead of a
// corked pair of writes that the stream gathers into a writev: 3-8 % less CPU
// per request for 80-700 byte bodies (Express's res.json, which sends a
// Buffer whenever it makes an ETag), none at 2 KB where the copy costs what
// the writev machinery saves (in-process A/B, Node 20/24/26).
const SMALL_BODY = 1024;
const latin1Slice = Buffer.prototype.latin1Slice;

function makeEnd(adapter, original, proto) {
  const { kCorked, endWrites } = adapter;
  const finisherFor = makeFinisher(adapter);
  const stockImplicitHeader = proto._implicitHeader;
  const stockSend = proto._send;
  const stockWriteRaw = proto._writeRaw;
  const stockWriteHead = proto.writeHead;
  // writeHead's copy belongs to the head part: where that part stays stock
  // (docs/node-versions.md), the head is Node's own _implicitHeader's.
  const implicitHeader = adapter.parts.head.on ? makeImplicitHeader(adapter, stockWriteHead) : null;

  // Why the fast path cannot take this call, or '' when it can.
  function refusal(res, socket) {
    if (res.finished || res.destroyed) return 'finished';
    if (socket === null || socket === undefined) return 'noSocket';
    if (socket._httpMessage !== res) return 'queued';
    if (!(socket instanceof net.Socket)) return 'fakeSocket';
    if (socket.destroyed || !socket.writable) return 'socketClosed';
    if (socket.writableCorked !== 0 || res[kCorked] !== 0) return 'corked';
    if (res.outputData.length !== 0) return 'pendingOutput';
    if (res.strictContentLength) return 'strictContentLength';
    if (res._implicitHeader !== stockImplicitHeader || res._send !== stockSend ||
        res._writeRaw !== stockWriteRaw) return 'overridden';
    return '';
  }

  return function end(chunk, encoding, callback) {
    if (typeof chunk === 'function' || typeof encoding === 'function' ||
        typeof callback === 'function') {
      stats.count('end.fallback.callback');
      return original.apply(this, arguments);
    }
    // The socket validates the encoding even for a Buffer body.
    if (encoding && encoding !== 'utf8' && encoding !== 'latin1') {
      stats.count('end.fallback.encoding');
      return original.apply(this, arguments);
    }
    let isString = false;
    if (chunk) {
      if (typeof chunk === 'string') {
        isString = true;
      } else if (!(chunk instanceof Uint8Array)) {
        return original.apply(this, arguments); // Node throws the type error
      }
    }
    const socket = this.socket;
    const why = refusal(this, socket);
    if (why !== '') {
      stats.count('end.fallback.' + why);
      return original.apply(this, arguments);
    }

    if (!this._header) {
      const store = this[adapter.kOutHeaders];
      if (store !== null && store.expect !== undefined) {
        stats.count('end.fallback.expect');
        return original.apply(this, arguments);
      }
      this._contentLength = !chunk ? 0 :
        isString ? Buffer.byteLength(chunk, encoding) : chunk.byteLength;
      // Node corks around the head render; a throw leaves the socket corked.
      socket.cork();
      if (implicitHeader !== null && this.writeHead === stockWriteHead) implicitHeader(this);
      else this._implicitHeader(); // a hooked writeHead (on-headers and the like) must run
      socket.uncork();
    } else if (this._headerSent) {
      stats.count('end.fallback.headerSent');
      return original.apply(this, arguments);
    }

    if (!this._hasBody || this.chunkedEncoding || this.outputData.length !== 0) {
      // The head is rendered exactly as Node would have; Node's end() takes it from here.
      stats.count(this._hasBody ? 'end.fallback.chunked' : 'end.fallback.noBody');
      return original.apply(this, arguments);
    }

    const header = this._header;
    this._headerSent = true;
    // As many writes as stock's end() leaves in the cork for this kind of
    // body (one, or two or three gathered into a writev), read from the
    // running Node (adapters.js): one for no body, and for a string body
    // where the finish rides on the body's write (24.21+, 26.8+).
    const finish = finisherFor(this, (!chunk ? endWrites.none : isString ? endWrites.string : endWrites.buffer) > 1);
    if (!chunk) {
      socket.write(header, 'latin1', finish);
    } else if (isString) {
      socket.write(header + chunk, encoding, finish);
    } else if (chunk.byteLength <= SMALL_BODY) {
      socket.write(header + latin1Slice.call(chunk, 0, chunk.byteLength), 'latin1', finish);
    } else {
      socket.cork();
      socket.write(header, 'latin1');
      socket.write(chunk, undefined, finish);
      socket.uncork();
    }
    this.finished = true;
    if (socket._httpMessage === this) this._finish();
    stats.count('end.fast');
    return this;
  };
}

module.exports = { makeEnd };
