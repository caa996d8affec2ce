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

module.exports = { RE_TOKEN, RE_INVALID_VALUE, RE_CONN_CLOSE, RE_TE_CHUNKED };
