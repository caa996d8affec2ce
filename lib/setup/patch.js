'use strict';
// Installs and removes the replacement methods. Each patch remembers the
// exact property it replaced (or that there was none), so uninstall() puts
// Node back as it was.

const http = require('http');
const net = require('net');
const { makeExpressBinder } = require('../frameworks/express');
const { makeEnd } = require('../response/server-end');
const { makeStoreHeader } = require('../response/store-header');
const { makeContainerCreator, makeSetHeader, makeGetHeader, makeRemoveHeader } = require('../response/header-container');
const { makeGetHeaders } = require('../http2/get-headers');
const { compatSymbols } = require('../http2/symbols');
const { planCompatEnd } = require('../http2/compat-end');
const { planHeaderStore } = require('../http2/header-store');
const { makeVerifyingStoreHeader } = require('../response/verify');

// `sender` returns the addon when it can send files (sendfile), else null.
function planFilePipe(sender) {
  if (process.env.HTTP_FASTPATH_SENDFILE === '0' || process.platform !== 'linux') return [];
  const { makeFilePipe } = require('../file/read-stream-pipe');
  const fs = require('fs');
  return [{
    target: fs.ReadStream.prototype, owner: 'fs.ReadStream', name: 'pipe',
    make: (orig) => {
      // Read when applied, after the response patches: their end is the one a stock response has.
      const out = http.OutgoingMessage.prototype;
      const own = {
        write: out.write, end: http.ServerResponse.prototype.end, implicitHeader: http.ServerResponse.prototype._implicitHeader,
        send: out._send, writeRaw: out._writeRaw,
      };
      return makeFilePipe(orig, sender, own);
    },
  }];
}

// `onFirstListen(filePath)`, if given, runs when the first HTTP server listens.
function plan(adapter, { verify = false, sender = () => null, onFirstListen = null } = {}) {
  const out = http.OutgoingMessage.prototype;
  const res = http.ServerResponse.prototype;
  if (verify) {
    // Stock writes everywhere; every head is rendered both ways and compared.
    return [{
      target: out, owner: 'OutgoingMessage', name: '_storeHeader',
      make: (orig) => makeVerifyingStoreHeader(makeStoreHeader(adapter, orig).render, orig),
    }];
  }
  // Each part of the response path only where the running Node's sources
  // and probes match a verified form (adapters.js); otherwise stock.
  const { parts } = adapter;
  const patches = [];
  if (parts.head.on) patches.push({ target: out, owner: 'OutgoingMessage', name: '_storeHeader', make: (orig) => makeStoreHeader(adapter, orig) });
  if (parts.end.on) patches.push({ target: res, owner: 'ServerResponse', name: 'end', make: (orig) => makeEnd(adapter, orig, res) });
  if (parts.headers.on) {
    patches.push({ target: out, owner: 'OutgoingMessage', name: 'setHeader', make: (orig) => makeSetHeader(adapter, orig) });
    patches.push({ target: out, owner: 'OutgoingMessage', name: 'getHeader', make: (orig) => makeGetHeader(adapter, orig) });
    patches.push({ target: out, owner: 'OutgoingMessage', name: 'removeHeader', make: (orig) => makeRemoveHeader(adapter, orig) });
    if (adapter.headerStore === 'literal') {
      patches.push({ target: out, owner: 'OutgoingMessage', name: 'appendHeader', make: (orig) => makeContainerCreator(adapter, orig) });
    }
  }
  const filePipe = planFilePipe(sender);
  const binder = process.env.HTTP_FASTPATH_EXPRESS !== '0' ? makeExpressBinder() : null;
  // What the package loads or sets for a process that serves HTTP (the
  // native addon, dlopen ~3-4 ms; the allocator settings) happens when its
  // first HTTP server listens, not in its first request, which would stall
  // every other connection meanwhile. A process that never listens never
  // loads the addon.
  let listened = onFirstListen === null;
  if (binder !== null || !listened) {
    patches.push({
      target: net.Server.prototype, owner: 'net.Server', name: 'listen', binder,
      make: (orig) => function listen() {
        if (binder !== null) binder.consider(this);
        if (!listened && this instanceof http.Server) {
          listened = true;
          onFirstListen(filePipe.length !== 0);
        }
        return orig.apply(this, arguments);
      },
      undo: () => binder?.unbindAll(),
    });
  }
  patches.push(...filePipe);
  return patches;
}

// The HTTP/2 compat patches, planned only once the app has loaded http2
// (loading it costs ~10 ms and several MiB: crypto, tls, ...).
// HTTP_FASTPATH_HTTP2=0 leaves http2 stock.
function planHttp2(adapter, { verify = false, http2Counters = { lateTrailers: 0, stockReason: null } } = {}) {
  if (verify) return [];
  if (process.env.HTTP_FASTPATH_HTTP2 === '0') {
    http2Counters.stockReason = 'HTTP_FASTPATH_HTTP2=0';
    return [];
  }
  const { Http2ServerResponse } = require('http2');
  const proto = Http2ServerResponse.prototype;
  const symbols = compatSymbols(Http2ServerResponse);
  const patches = [];
  if (symbols.recognised) {
    patches.push(...planHeaderStore(proto, symbols), ...planCompatEnd(proto, symbols, http2Counters));
  } else {
    http2Counters.stockReason = 'unrecognised Http2ServerResponse internals';
  }
  // Node 26.0+ copies the headers the way this does already; 20-24 use
  // ObjectAssign, which its own source text shows.
  const { kHeaders } = symbols;
  if (kHeaders && /\bObjectAssign\(/.test(Function.prototype.toString.call(proto.getHeaders))) patches.push({ target: proto, owner: 'Http2ServerResponse', name: 'getHeaders', make: () => makeGetHeaders(kHeaders) });
  return patches;
}

function apply(patches) {
  for (const p of patches) {
    p.hadOwn = Object.prototype.hasOwnProperty.call(p.target, p.name);
    p.descriptor = Object.getOwnPropertyDescriptor(p.target, p.name);
    p.original = p.target[p.name];
    p.replacement = p.make(p.original);
    Object.defineProperty(p.target, p.name, {
      value: p.replacement, writable: true, configurable: true,
      enumerable: p.descriptor ? p.descriptor.enumerable : true,
    });
  }
}

function revert(patches) {
  for (let i = patches.length - 1; i >= 0; i--) {
    const p = patches[i];
    if (p.undo) p.undo();
    if (p.target[p.name] !== p.replacement) continue; // someone patched over us: leave theirs
    if (p.hadOwn) Object.defineProperty(p.target, p.name, p.descriptor);
    else delete p.target[p.name];
  }
}

module.exports = { plan, planHttp2, apply, revert };
