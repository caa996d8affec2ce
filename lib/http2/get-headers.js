'use strict';
// Http2ServerResponse.prototype.getHeaders() for Node 20-24: the explicit
// key copy Node 26 uses instead of ObjectAssign. Same result: a
// null-prototype shallow copy of the response's own (string-keyed) headers.

function makeGetHeaders(kHeaders) {
  return function getHeaders() {
    const headers = { __proto__: null };
    const source = this[kHeaders];
    const keys = Object.keys(source);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      headers[key] = source[key];
    }
    return headers;
  };
}

module.exports = { makeGetHeaders };
