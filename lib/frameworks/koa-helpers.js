'use strict';
// What Koa does per request through code that V8 or a dependency makes
// slow, done for less where the result is the same. Each is a stand-in
// handed to one Koa file only (lib/frameworks/package-loads.js):
//
// - delegates, for koa/lib/context.js: ctx.set(...), ctx.body, ctx.path and
//   ~45 more are each `this[target][name]` through one function shared by
//   every name, so V8 sees one property access for all of them and keeps it
//   megamorphic: ~1.0-1.5 us for 13 delegated calls on Node 20-26 against
//   ~0.15 us with a function per name. The stand-in lets the real Delegator
//   define every method and accessor, then, for the names listed below, puts
//   in its place a function per name that does what delegates 1.0.0's does,
//   step for step (a method reads the target twice and calls `apply` with the
//   arguments; a setter's assignment is its result). Names not listed keep
//   delegates' own.
// - mime-types, for koa/lib/response.js (Koa 3): `ctx.type = 'json'`, set by
//   every object body, resolves the type through mime-types' tables each
//   time; its contentType is kept per string, as Express 5's is
//   (mime-content-type.js: each result re-checked against the table entries
//   it came from).
//
// Only delegates 1.0.0's source and the mime-types lines mime-content-type.js
// recognises are taken; while the package is uninstalled, the context
// prototypes have delegates' functions back and contentType answers through
// mime-types. Measured: docs/koa.md.

const Module = require('module');
const { fileDigest } = require('./source-digest');
const { resolveOrNull } = require('./package-info');

// delegates 1.0.0 (index.js).
const DELEGATES = new Set(['694697be68fb102fb7e9f70d9f35a8827c6d6943']);

/* eslint-disable func-names, prefer-rest-params, no-return-assign */
// Koa 2.x and 3.x: what context.js delegates to ctx.response and ctx.request.
// Each function has the arity of delegates' own (its name is cleared below).
const METHODS = {
  response: {
    attachment: function () { return this.response.attachment.apply(this.response, arguments); },
    redirect: function () { return this.response.redirect.apply(this.response, arguments); },
    remove: function () { return this.response.remove.apply(this.response, arguments); },
    vary: function () { return this.response.vary.apply(this.response, arguments); },
    has: function () { return this.response.has.apply(this.response, arguments); },
    set: function () { return this.response.set.apply(this.response, arguments); },
    append: function () { return this.response.append.apply(this.response, arguments); },
    flushHeaders: function () { return this.response.flushHeaders.apply(this.response, arguments); },
    back: function () { return this.response.back.apply(this.response, arguments); },
  },
  request: {
    acceptsLanguages: function () { return this.request.acceptsLanguages.apply(this.request, arguments); },
    acceptsEncodings: function () { return this.request.acceptsEncodings.apply(this.request, arguments); },
    acceptsCharsets: function () { return this.request.acceptsCharsets.apply(this.request, arguments); },
    accepts: function () { return this.request.accepts.apply(this.request, arguments); },
    get: function () { return this.request.get.apply(this.request, arguments); },
    is: function () { return this.request.is.apply(this.request, arguments); },
  },
};
const GETTERS = {
  response: {
    status: function () { return this.response.status; },
    message: function () { return this.response.message; },
    body: function () { return this.response.body; },
    length: function () { return this.response.length; },
    type: function () { return this.response.type; },
    lastModified: function () { return this.response.lastModified; },
    etag: function () { return this.response.etag; },
    headerSent: function () { return this.response.headerSent; },
    writable: function () { return this.response.writable; },
  },
  request: {
    querystring: function () { return this.request.querystring; },
    idempotent: function () { return this.request.idempotent; },
    socket: function () { return this.request.socket; },
    search: function () { return this.request.search; },
    method: function () { return this.request.method; },
    query: function () { return this.request.query; },
    path: function () { return this.request.path; },
    url: function () { return this.request.url; },
    accept: function () { return this.request.accept; },
    origin: function () { return this.request.origin; },
    href: function () { return this.request.href; },
    subdomains: function () { return this.request.subdomains; },
    protocol: function () { return this.request.protocol; },
    host: function () { return this.request.host; },
    hostname: function () { return this.request.hostname; },
    URL: function () { return this.request.URL; },
    header: function () { return this.request.header; },
    headers: function () { return this.request.headers; },
    secure: function () { return this.request.secure; },
    stale: function () { return this.request.stale; },
    fresh: function () { return this.request.fresh; },
    ips: function () { return this.request.ips; },
    ip: function () { return this.request.ip; },
  },
};
const SETTERS = {
  response: {
    status: function (val) { return this.response.status = val; },
    message: function (val) { return this.response.message = val; },
    body: function (val) { return this.response.body = val; },
    length: function (val) { return this.response.length = val; },
    type: function (val) { return this.response.type = val; },
    lastModified: function (val) { return this.response.lastModified = val; },
    etag: function (val) { return this.response.etag = val; },
  },
  request: {
    querystring: function (val) { return this.request.querystring = val; },
    idempotent: function (val) { return this.request.idempotent = val; },
    socket: function (val) { return this.request.socket = val; },
    search: function (val) { return this.request.search = val; },
    method: function (val) { return this.request.method = val; },
    query: function (val) { return this.request.query = val; },
    path: function (val) { return this.request.path = val; },
    url: function (val) { return this.request.url = val; },
    accept: function (val) { return this.request.accept = val; },
  },
};
/* eslint-enable func-names, prefer-rest-params, no-return-assign */
// The table's functions took their property names; delegates' have none.
for (const table of [METHODS, GETTERS, SETTERS]) {
  for (const fns of Object.values(table)) for (const fn of Object.values(fns)) Object.defineProperty(fn, 'name', { value: '' });
}

let active = false;
const counters = { adopted: 0, unknownVersion: 0, specialised: 0 };
const contentTypeCounters = { adopted: 0, unknownVersion: 0 };
// Each property replaced: { proto, name, stock, own } (descriptors).
const replaced = [];

const put = (entry, descriptor) => Object.defineProperty(entry.proto, entry.name, descriptor);
const same = (a, b) => a !== undefined && a.value === b.value && a.get === b.get && a.set === b.set;

function setActive(on) {
  if (on === active) return;
  active = on;
  for (const entry of replaced) {
    // Someone redefined it since: theirs stays.
    if (same(Object.getOwnPropertyDescriptor(entry.proto, entry.name), on ? entry.stock : entry.own)) put(entry, on ? entry.own : entry.stock);
  }
}

const ours = (table, target, name) => (Object.hasOwn(table, target) && Object.hasOwn(table[target], name) ? table[target][name] : undefined);

// After delegates defined `name` on `proto` (a method, or one half of an
// accessor: access() defines the getter, then the setter, which keeps the
// getter in place): the same property with the table's functions, if the
// table has one for every part delegates set.
function specialise(proto, target, name) {
  const now = Object.getOwnPropertyDescriptor(proto, name);
  if (now === undefined) return;
  const at = replaced.findIndex((e) => e.proto === proto && e.name === name);
  const before = at === -1 ? undefined : replaced[at];
  // A part that is ours already stands for the one delegates set before it.
  const stockPart = (part) => (before !== undefined && now[part] !== undefined && now[part] === before.own[part] ? before.stock[part] : now[part]);
  let entry;
  if ('value' in now) {
    const fn = ours(METHODS, target, name);
    if (fn === undefined || typeof now.value !== 'function') return;
    entry = { proto, name, stock: { ...now, value: stockPart('value') }, own: { ...now, value: fn } };
  } else {
    const get = now.get === undefined ? undefined : ours(GETTERS, target, name);
    const set = now.set === undefined ? undefined : ours(SETTERS, target, name);
    if ((now.get !== undefined && get === undefined) || (now.set !== undefined && set === undefined)) return;
    entry = { proto, name, stock: { ...now, get: stockPart('get'), set: stockPart('set') }, own: { ...now, get, set } };
  }
  if (at === -1) {
    replaced.push(entry);
    counters.specialised++;
  } else {
    replaced[at] = entry;
  }
  put(entry, active ? entry.own : entry.stock);
}

// The `delegates` module as koa/lib/context.js (file `contextFile`) requires it.
function delegatesFor(Delegator, contextFile) {
  const file = resolveOrNull(Module.createRequire(contextFile), 'delegates');
  if (typeof Delegator !== 'function' || file === null || !DELEGATES.has(fileDigest(file))) {
    counters.unknownVersion++;
    return Delegator;
  }
  counters.adopted++;
  const { method, getter, setter } = Delegator.prototype;
  const then = (define) => function (name) {
    const result = Reflect.apply(define, this, arguments);
    specialise(this.proto, this.target, name);
    return result;
  };
  // Koa calls it as a function and chains on what it returns.
  return function delegate(proto, target) {
    const delegator = Delegator(proto, target);
    if (Object.hasOwn(METHODS, target)) {
      delegator.method = then(method);
      delegator.getter = then(getter);
      delegator.setter = then(setter);
    }
    return delegator;
  };
}

// --- mime-types ------------------------------------------------------------

// mime-types as koa/lib/response.js (file `responseFile`) requires it.
function mimeTypesFor(mime, responseFile) {
  const helpers = require('./mime-content-type');
  let known = null;
  try {
    known = helpers.recogniseMimeTypes(Module.createRequire(responseFile), mime);
  } catch {}
  if (known === null) {
    contentTypeCounters.unknownVersion++;
    return mime;
  }
  contentTypeCounters.adopted++;
  const original = mime.contentType;
  const kept = helpers.makeContentType(mime, known.db, original);
  const standIn = Object.create(mime);
  standIn.contentType = function contentType(str) {
    return Reflect.apply(active ? kept : original, this, arguments);
  };
  return standIn;
}

function snapshot() {
  return { delegations: { ...counters }, contentType: { ...contentTypeCounters } };
}

module.exports = { delegatesFor, mimeTypesFor, setActive, snapshot };
