'use strict';
// A fast-mode header store for Http2ServerResponse, and setHeader without
// re-validating a name it has accepted before.
//
// The compat response keeps its headers in a `{ __proto__: null }` literal,
// which V8 creates in dictionary mode: every store is a hash insert and
// respond() copies it with a for-in that has no enum cache (~3 us of the
// compat path on Node 24 here, benchmark/http2/compat.js). An object whose
// prototype is an empty null-prototype object is a fast-mode object with the
// same lookups: nothing is inherited, `__proto__` is an own key, for-in and
// Object.keys see the same keys in the same order. The store is swapped
// while it is still empty, so nothing else can hold the old one.
//
// kSetHeader lower-cases, trims and validates the name on every call. A name
// it accepted without a side effect (a token, not a pseudo-header, not
// `connection`) maps to the same key next time; any other name, and any
// nullish value, takes Node's own path with its errors and warnings.

const { _checkIsHttpToken: checkIsHttpToken } = require('_http_common');

const FAST_STORE = Object.freeze(Object.create(null));
const MAX_NAMES = 512;

function isEmpty(object) {
  for (const key in object) return false; // eslint-disable-line no-unused-vars
  return true;
}

// The response's store, made fast-mode if it is still the empty dictionary
// the constructor made.
function fastStore(res, kHeaders) {
  let headers = res[kHeaders];
  if (Object.getPrototypeOf(headers) !== FAST_STORE && isEmpty(headers)) {
    headers = Object.create(FAST_STORE);
    res[kHeaders] = headers;
  }
  return headers;
}

// The key kSetHeader stores `name` under when it does nothing else, or null.
function plainKey(name) {
  if (typeof name !== 'string') return null;
  const key = name.trim().toLowerCase();
  if (key === '' || key.includes(' ') || key[0] === ':' || key === 'connection' || !checkIsHttpToken(key)) return null;
  return key;
}

// `symbols`: lib/http2/symbols.js, of a recognised compat layer.
function planHeaderStore(proto, { kSetHeader, kHeaders }) {
  if (kSetHeader === undefined || typeof proto[kSetHeader] !== 'function') return [];
  const keys = new Map();
  return [{
    target: proto, owner: 'Http2ServerResponse', name: kSetHeader, label: '[setHeader]',
    make: (originalSetHeader) => function setHeader(name, value) {
      const headers = fastStore(this, kHeaders);
      const key = keys.get(name);
      if (key !== undefined && value !== undefined && value !== null) {
        headers[key] = value;
        return;
      }
      Reflect.apply(originalSetHeader, this, arguments);
      if (keys.size < MAX_NAMES && value !== undefined && value !== null) {
        const plain = plainKey(name);
        if (plain !== null) keys.set(name, plain);
      }
    },
  }];
}

module.exports = { planHeaderStore, fastStore, isEmpty };
