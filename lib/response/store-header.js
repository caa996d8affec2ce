'use strict';
// A faster OutgoingMessage.prototype._storeHeader for the common case: the
// headers come from the message's own store (or there are none). It renders
// the same text and sets the same fields as Node's version, in one loop with
// no per-header calls and with the Date and Keep-Alive lines cached. Anything
// unusual (validated header objects/arrays, joined Cookie or unique headers,
// latin1 content-disposition, Expect, Trailer, exotic value types) is handed
// to Node's own function, which redoes the whole call. Node reads one field
// the loop writes while it walks the headers: _contentLength (a
// Content-Disposition line is latin1-encoded once a Content-Length is known),
// so that one is put back before handing over. The others Node only writes
// there, and it writes them again, to the same values, for the same headers.

const { OutgoingMessage } = require('http');
const { dateHeaderLine } = require('./date-cache');
const stats = require('../setup/stats');

const { RE_CONN_CLOSE, RE_TE_CHUNKED, isPlainHeader } = require('./http-rules');

function makeStoreHeader(adapter, original) {
  const { kOutHeaders, kUniqueHeaders } = adapter;

  // The Connection/Keep-Alive lines are the same for every response of a
  // server: rendered once per (timeout, max) by Node's own _storeHeader on a
  // probe message, since how `max` is shown changed inside release lines
  // (26.12.1 writes ~~max, 26.0-26.10 and 20-24 the value as set: `max=2.5`).
  let cachedTimeout = -1;
  let cachedMax = -1;
  let cachedKeepAlive = null;
  function keepAliveLines(msg) {
    const timeout = msg._keepAliveTimeout;
    const max = msg._maxRequestsPerSocket;
    if (!Object.is(timeout, cachedTimeout) || !Object.is(max, cachedMax)) {
      cachedKeepAlive = nodeKeepAliveLines(original, timeout, max);
      cachedTimeout = timeout;
      cachedMax = max;
    }
    return cachedKeepAlive;
  }

  // Returns the header text for one store entry, or null to bail out.
  // Sets the message fields Node's matchHeader sets, and reports the
  // framing-relevant names through `seen`.
  function renderEntry(msg, key, name, value, seen) {
    if (typeof value === 'string' || typeof value === 'number') {
      if (key.length === 19 && key === 'content-disposition' && msg._contentLength) return null;
      if (key.length >= 4 && key.length <= 17 && !matchHeader(msg, key, value, seen)) return null;
      return name + ': ' + value + '\r\n';
    }
    if (!Array.isArray(value)) return null;
    if (value.length >= 2 && key === 'cookie') return null;
    const unique = msg[kUniqueHeaders];
    if (unique && unique.has(key)) return null;
    if (key === 'content-disposition' && msg._contentLength) return null;
    let lines = '';
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (typeof v !== 'string' && typeof v !== 'number') return null;
      if (key.length >= 4 && key.length <= 17 && !matchHeader(msg, key, v, seen)) return null;
      lines += name + ': ' + v + '\r\n';
    }
    return lines;
  }

  // writeHead(code, { ...headers }) with no store: Node validates and renders
  // each own key. Invalid input is left to Node, which throws the same error.
  function renderObject(msg, headers, seen) {
    let text = '';
    for (const name in headers) {
      if (!Object.prototype.hasOwnProperty.call(headers, name)) continue;
      const value = headers[name];
      if (!isPlainHeader(name, value)) return null;
      const line = renderEntry(msg, name.length >= 4 && name.length <= 19 ? name.toLowerCase() : name, name, value, seen);
      if (line === null) return null;
      text += line;
    }
    return text;
  }

  // Renders the head into msg._header exactly as Node's _storeHeader would
  // and returns true, or returns false (leaving only fields Node will set to
  // the same values before reading them) when the call must go to Node.
  function render(msg, firstLine, headers) {
    const seen = { connection: false, contLen: false, te: false, date: false };
    const contentLength = msg._contentLength;
    let header = firstLine;
    if (headers === msg[kOutHeaders] && headers) {
      for (const key in headers) {
        const entry = headers[key];
        const text = renderEntry(msg, key, entry[0], entry[1], seen);
        if (text === null) {
          msg._contentLength = contentLength;
          stats.count('storeHeader.special');
          return false;
        }
        header += text;
      }
    } else if (headers) {
      const text = Array.isArray(headers) ? null : renderObject(msg, headers, seen);
      if (text === null) {
        msg._contentLength = contentLength;
        stats.count('storeHeader.validated');
        return false;
      }
      header += text;
    }

    if (msg.sendDate && !seen.date) header += dateHeaderLine();

    if (msg.chunkedEncoding && (msg.statusCode === 204 || msg.statusCode === 304)) {
      msg.chunkedEncoding = false;
      msg.shouldKeepAlive = false;
    }

    if (msg._removedConnection) {
      msg._last = !msg.shouldKeepAlive;
    } else if (!seen.connection) {
      const keepAlive = msg.shouldKeepAlive &&
        (seen.contLen || msg.useChunkedEncodingByDefault || msg.agent);
      if (keepAlive && msg.maxRequestsOnConnectionReached) {
        header += 'Connection: close\r\n';
      } else if (keepAlive) {
        const lines = msg._keepAliveTimeout && msg._defaultKeepAlive ?
          keepAliveLines(msg) : 'Connection: keep-alive\r\n';
        if (lines === null) {
          msg._contentLength = contentLength;
          stats.count('storeHeader.special');
          return false;
        }
        header += lines;
      } else {
        msg._last = true;
        header += 'Connection: close\r\n';
      }
    }

    if (!seen.contLen && !seen.te) {
      if (!msg._hasBody) {
        msg.chunkedEncoding = false;
      } else if (!msg.useChunkedEncodingByDefault) {
        msg._last = true;
      } else if (!msg._removedContLen && typeof msg._contentLength === 'number') {
        header += 'Content-Length: ' + msg._contentLength + '\r\n';
      } else if (!msg._removedTE) {
        header += 'Transfer-Encoding: chunked\r\n';
        msg.chunkedEncoding = true;
      } else {
        msg._last = true;
      }
    }

    msg._header = header + '\r\n';
    msg._headerSent = false;
    stats.count('storeHeader.fast');
    return true;
  }

  const storeHeader = function _storeHeader(firstLine, headers) {
    if (!render(this, firstLine, headers)) return original.call(this, firstLine, headers);
  };
  storeHeader.render = render;
  return storeHeader;
}

// What Node's _storeHeader writes for a keep-alive message with this
// timeout and max and no headers, or null if it is not a Connection line
// followed by a Keep-Alive line.
function nodeKeepAliveLines(storeHeader, timeout, max) {
  const probe = new OutgoingMessage();
  probe.shouldKeepAlive = true;
  probe._defaultKeepAlive = true;
  probe._keepAliveTimeout = timeout;
  probe._maxRequestsPerSocket = max;
  probe._hasBody = false;
  probe.sendDate = false;
  try {
    storeHeader.call(probe, '', null);
  } catch {
    return null;
  }
  const text = probe._header;
  return typeof text === 'string' && /^Connection: keep-alive\r\nKeep-Alive: [^\r\n]*\r\n\r\n$/.test(text) ? text.slice(0, -2) : null;
}

// Node's matchHeader for a lowercase name of length 4-17. Returns false for
// Expect and Trailer, which the fast loop leaves to Node.
function matchHeader(msg, key, value, seen) {
  switch (key) {
    case 'connection':
      seen.connection = true;
      msg._removedConnection = false;
      if (RE_CONN_CLOSE.test(value)) msg._last = true;
      else msg.shouldKeepAlive = true;
      break;
    case 'transfer-encoding':
      seen.te = true;
      msg._removedTE = false;
      if (RE_TE_CHUNKED.test(value)) msg.chunkedEncoding = true;
      break;
    case 'content-length':
      seen.contLen = true;
      msg._contentLength = +value;
      msg._removedContLen = false;
      break;
    case 'date':
      seen.date = true;
      break;
    case 'expect':
    case 'trailer':
      return false;
    case 'keep-alive':
      msg._defaultKeepAlive = false;
      break;
  }
  return true;
}

module.exports = { makeStoreHeader };
