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

// The common case every fast path takes: a token name and a strictly valid
// string or a number value (Node stores and renders both exactly as given).
function isPlainHeader(name, value) {
  return typeof name === 'string' && RE_TOKEN.test(name) &&
    (typeof value === 'string' ? !RE_INVALID_VALUE.test(value) : typeof value === 'number');
}

module.exports = { RE_INVALID_VALUE, RE_CONN_CLOSE, RE_TE_CHUNKED, isPlainHeader };
