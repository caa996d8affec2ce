'use strict';
// Run by one Node binary (scripts/node-versions.js starts it with each
// version's own node): prints, as JSON, what that Node's HTTP internals are
// and what the package reads from them.
//   - modules: sha1 of the built-in sources _http_outgoing, _http_server,
//     _http_common, _http_incoming (process.binding('natives'), fine in a
//     script; the package itself never calls it);
//   - parts: the digest of each part's stock functions (lib/response/adapters.js);
//   - facts: what the package's probes read (end() writes and callbacks,
//     header store, Keep-Alive rendering of max=2.5, http2 getHeaders);
//   - onFinish: sha1 of _http_outgoing's private onFinish, which the fast
//     end() copies (lib/response/finish.js), for the record.

const http = require('http');
const crypto = require('crypto');
const sha1 = (text) => crypto.createHash('sha1').update(text).digest('hex');
const adapters = require('../lib/response/adapters');

const natives = process.binding('natives');
const modules = {};
for (const name of ['_http_outgoing', '_http_server', '_http_common', '_http_incoming']) modules[name] = sha1(natives[name]);

// A top-level function's text in a built-in's source.
function privateFunction(source, name) {
  const at = source.search(new RegExp(`\\nfunction ${name}\\(`));
  if (at < 0) return null;
  return source.slice(at + 1, source.indexOf('\n}\n', at) + 2);
}

const parts = {};
for (const part of Object.keys(adapters.PARTS)) parts[part] = adapters.partDigest(part);

// Read with every part counted as verified: the facts, whatever the table says.
const everything = {};
for (const [part, digest] of Object.entries(parts)) everything[part] = { [digest]: [] };
const adapter = adapters.makeAdapter(everything);

// Node's own rendering of a keep-alive response with max = 2.5.
const probe = new http.OutgoingMessage();
Object.assign(probe, { shouldKeepAlive: true, _defaultKeepAlive: true, _keepAliveTimeout: 5000, _maxRequestsPerSocket: 2.5, _hasBody: false, sendDate: false });
http.OutgoingMessage.prototype._storeHeader.call(probe, '', null);

const http2 = require('http2');
const onFinish = privateFunction(natives._http_outgoing, 'onFinish');

process.stdout.write(JSON.stringify({
  version: process.versions.node,
  modules,
  parts,
  facts: {
    endWrites: adapter.endWrites,
    endCallbacks: adapter.endCallbacks,
    headerStore: adapter.headerStore,
    stockBecause: Object.fromEntries(Object.entries(adapter.parts).filter(([, p]) => !p.on).map(([k, p]) => [k, p.reason])),
    keepAlive: probe._header.split('\r\n')[1],
    http2GetHeadersAssign: /\bObjectAssign\(/.test(String(http2.Http2ServerResponse.prototype.getHeaders)),
  },
  onFinish: onFinish === null ? null : sha1(onFinish),
}) + '\n');
