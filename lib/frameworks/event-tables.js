'use strict';
// Listener tables for the requests and responses the Express binding builds.
//
// Node presets a stream's listener table with an object literal,
// `this._events ??= { close: undefined, error: undefined, … }` (Readable on
// every line, so every IncomingMessage; OutgoingMessage from Node 26). V8
// tracks each literal's allocation site, and when it sees most of a site's
// objects survive a scavenge it allocates that site's objects in the old
// generation from then on (allocation-site pretenuring). Under a middleware
// stack, whose listeners capture the request (on-finished, compression,
// morgan), that decision is taken in some processes and not in others; where
// it is, every listener added to a table, and through it the whole request,
// stays reachable from the old generation until the next full mark-compact:
// 12-16 mark-compacts instead of 5 in the same 4 s of load, a quarter more
// CPU per request (Node 26, docs/express.md).
//
// `new` on a plain constructor has no allocation site, so a table built by one
// stays young. Each table here has the literal's keys in its order, all
// undefined, and Object.prototype as its prototype: the object Node's `??=`
// then keeps cannot be told from the literal's. A table is used only when a
// stock object built here shows exactly that literal; otherwise (a Node whose
// constructor has another table, or none) the constructors leave `_events`
// to Node.

const http = require('http');

// Readable's table (IncomingMessage).
function ReadableListeners() {
  this.close = undefined;
  this.error = undefined;
  this.data = undefined;
  this.end = undefined;
  this.readable = undefined;
}
ReadableListeners.prototype = Object.prototype;

// OutgoingMessage's table (ServerResponse), Node 26.
function OutgoingListeners() {
  this.close = undefined;
  this.error = undefined;
  this.finish = undefined;
  this.prefinish = undefined;
  this.drain = undefined;
}
OutgoingListeners.prototype = Object.prototype;

// Own keys, prototype and values as a string, for comparing two tables.
function describe(table) {
  if (table === null || typeof table !== 'object') return String(table);
  if (Object.getPrototypeOf(table) !== Object.prototype) return 'other prototype';
  const parts = [];
  for (const key of Reflect.ownKeys(table)) {
    const d = Object.getOwnPropertyDescriptor(table, key);
    const plain = 'value' in d && d.value === undefined && d.writable && d.enumerable && d.configurable;
    parts.push(`${String(key)}${plain ? '' : '!'}`);
  }
  return parts.join(',');
}

function tableFor(Listeners, stockTable) {
  const want = describe(stockTable);
  return describe(new Listeners()) === want ? Listeners : null;
}

let tables;

// { request, response }: the constructor of each table, or null where Node's
// own is left in place. Probed once, when first asked (a bound server, status()).
function listenerTables() {
  tables ??= {
    request: tableFor(ReadableListeners, new http.IncomingMessage(null)._events),
    response: tableFor(OutgoingListeners, new http.OutgoingMessage()._events),
  };
  return tables;
}

module.exports = { listenerTables, describe };
