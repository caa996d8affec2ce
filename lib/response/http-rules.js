'use strict';
// Node's header rules from _http_common, shared by the fast paths. Anything
// these reject is handed back to Node, which throws its own error.

// checkIsHttpToken: a header name.
const RE_TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
// checkInvalidHeaderChar (strict). A value that passes is valid in Node 24+'s
// lenient mode too.
const RE_INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const RE_CONN_CLOSE = /(?:^|\W)close(?:$|\W)/i;
const RE_TE_CHUNKED = /(?:^|\W)chunked(?:$|\W)/i;

// Header names an app uses are a few dozen strings set by code, each
// validated and lowercased on every setHeader/getHeader. The names that
// passed RE_TOKEN are kept with their lowercase form: one Map lookup instead
// of a regular expression and a new lowercase string (whose property lookup
// must then hash it). The answer depends only on the string, so it cannot go
// stale; past KEY_LIMIT names nothing more is kept and the rest is computed
// per call, as before (an app that echoes arbitrary request headers).
const KEY_LIMIT = 1024;
const tokenKeys = new Map();

// The store key of a header name that is a token, else undefined.
function tokenKey(name) {
  let key = tokenKeys.get(name);
  if (key !== undefined) return key;
  if (!RE_TOKEN.test(name)) return undefined;
  key = name.toLowerCase();
  if (tokenKeys.size < KEY_LIMIT) tokenKeys.set(name, key);
  return key;
}

// name.toLowerCase() for any string name.
function headerKey(name) {
  return tokenKeys.get(name) ?? name.toLowerCase();
}

function isPlainValue(value) {
  return typeof value === 'string' ? !RE_INVALID_VALUE.test(value) : typeof value === 'number';
}

// The common case every fast path takes: a token name and a strictly valid
// string or a number value (Node stores and renders both exactly as given).
function isPlainHeader(name, value) {
  return typeof name === 'string' && tokenKey(name) !== undefined && isPlainValue(value);
}

module.exports = { RE_TOKEN, RE_INVALID_VALUE, RE_CONN_CLOSE, RE_TE_CHUNKED, KEY_LIMIT, isPlainHeader, isPlainValue, tokenKey, headerKey };
