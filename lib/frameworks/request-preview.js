'use strict';
// What Node's HTTP parser says of the request it is about to build. Node
// constructs a server's request (`new server[kIncomingMessage](socket)`) first
// thing in parserOnHeadersComplete, before it sets `upgrade` on it, and gives
// the constructor only the socket. A bound constructor that must decide by the
// request (an upgrade or CONNECT goes to 'upgrade'/'connect' listeners, which
// get what stock builds) asks here.
//
// How: when a connection of a server that needs it starts (Node calls
// `parser.initialize(HTTPParser.REQUEST, resource, ...)` with the server
// reachable as resource.socket.server), its parser's callback is wrapped to
// note the `upgrade` and `url` arguments for the length of the call (Node
// takes the url from parser._url when the head came in several reads, and
// sets it on the request unchanged). It goes on before
// initialize, since Node 26 takes a parser's callbacks there; a pooled parser
// that later serves another connection or a client gets Node's callback back
// at its initialize. A request built while the wrap is not running for its
// own parser is not known (null).
//
// The wrap is one function of the same name under Node's in a stack trace,
// on those servers' connections only (docs/known-differences.md).

const { HTTPParser } = require('_http_common');

const kOnHeadersComplete = HTTPParser.kOnHeadersComplete;
const REQUEST = HTTPParser.REQUEST;

let nodeOnHeadersComplete = null; // Node's own, as a parser has it before the wrap
let nodeInitialize = null; // HTTPParser.prototype.initialize while watching
let needsWatch = null; // (server) => boolean
// The parser whose callback is running now, and what it said.
let currentParser = null;
let currentUpgrade = false;
let currentUrl = '';

function parserOnHeadersComplete(versionMajor, versionMinor, headers, method, url, statusCode, statusMessage, upgrade, shouldKeepAlive) {
  currentParser = this;
  currentUpgrade = upgrade;
  currentUrl = url === undefined ? this._url : url;
  try {
    return nodeOnHeadersComplete.call(this, versionMajor, versionMinor, headers, method, url, statusCode, statusMessage, upgrade, shouldKeepAlive);
  } finally {
    currentParser = null;
  }
}

function initialize(type, resource) {
  const current = this[kOnHeadersComplete];
  if (current !== parserOnHeadersComplete && typeof current === 'function' && current.name === 'parserOnHeadersComplete') nodeOnHeadersComplete ??= current;
  const server = type === REQUEST ? resource?.socket?.server : undefined;
  if (server !== undefined && nodeOnHeadersComplete !== null && current === nodeOnHeadersComplete && needsWatch(server)) {
    this[kOnHeadersComplete] = parserOnHeadersComplete;
  } else if (current === parserOnHeadersComplete && (server === undefined || !needsWatch(server))) {
    this[kOnHeadersComplete] = nodeOnHeadersComplete;
  }
  return nodeInitialize.apply(this, arguments);
}

// Watches the connections of the servers for which `predicate(server)` is
// true when they start; `unwatch()` stops (a watched parser keeps the wrap,
// passing through, until its next initialize gives Node's back).
function watch(predicate) {
  needsWatch = predicate;
  if (nodeInitialize !== null) return;
  nodeInitialize = HTTPParser.prototype.initialize;
  HTTPParser.prototype.initialize = initialize;
}

function unwatch() {
  if (nodeInitialize === null) return;
  if (HTTPParser.prototype.initialize === initialize) HTTPParser.prototype.initialize = nodeInitialize;
  nodeInitialize = null;
  needsWatch = () => false;
}

// Whether the request the socket's parser is building is a plain one (no
// upgrade, no CONNECT): true or false when the wrap is running for it, else null.
function isPlainRequest(socket) {
  return socket.parser === currentParser && currentParser !== null ? !currentUpgrade : null;
}

// The url of the request the socket's parser is building, or null when the
// wrap is not running for it.
function requestUrl(socket) {
  return socket.parser === currentParser && currentParser !== null ? currentUrl : null;
}

module.exports = { isPlainRequest, requestUrl, watch, unwatch };
