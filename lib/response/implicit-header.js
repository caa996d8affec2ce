'use strict';
// ServerResponse's implicit head (end() before writeHead()): Node calls
// this.writeHead(this.statusCode). This does the same with the default
// status line cached per code, as Node 26 does. An out-of-range code or an
// invalid statusMessage is handed to Node's writeHead, which repeats the
// same assignments and throws its own error.

const { STATUS_CODES } = require('http');

const { RE_INVALID_VALUE } = require('./http-rules');
const statusLines = new Map();

function makeImplicitHeader(adapter, stockWriteHead) {
  const { kOutHeaders } = adapter;
  return function implicitHeader(res) {
    const original = res.statusCode;
    const code = original | 0;
    if (code < 100 || code > 999) return stockWriteHead.call(res, original);
    if (!res.statusMessage) res.statusMessage = STATUS_CODES[code] || 'unknown';
    res.statusCode = code;
    const message = res.statusMessage;
    let statusLine;
    if (message === STATUS_CODES[code]) {
      statusLine = statusLines.get(code);
      if (statusLine === undefined) {
        statusLine = `HTTP/1.1 ${code} ${message}\r\n`;
        statusLines.set(code, statusLine);
      }
    } else {
      if (RE_INVALID_VALUE.test(message)) return stockWriteHead.call(res, original);
      statusLine = `HTTP/1.1 ${code} ${message}\r\n`;
    }
    if (code === 204 || code === 304 || code <= 199) res._hasBody = false;
    if (res._expect_continue && !res._sent100) res.shouldKeepAlive = false;
    const headers = res[kOutHeaders];
    res._storeHeader(statusLine, headers || undefined);
    return res;
  };
}

module.exports = { makeImplicitHeader };
