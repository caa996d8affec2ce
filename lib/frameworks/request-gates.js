'use strict';
// Request listeners that take the requests under a URL prefix for themselves
// and hand every other request, untouched, to the listeners they replaced:
// engine.io's `attach(server)` and socket.io's client-file server
// (`attachServe`), which socket.io installs on the http server it is given.
// Such a listener reads nothing of a request but `req.url` before it passes
// it on, so a request whose URL is outside its prefix can be born with the
// prototypes of the app it reaches (express.js); one inside is built stock.
//
// The listener is a closure: what it forwards to and its prefix are not
// reachable from it. So the method that installs it is wrapped, on the
// versions whose source is known (digests below), to note them as it runs:
// the listeners it replaces (the same copy it takes) and the prefix, read
// live where the package reads it live (socket.io's `io._path`).

const { sourceDigest } = require('./source-digest');

// engine.io 6.3.0-6.6.11 and 6.6.12-6.6.13: Server.prototype.attach
// (`path === req.url.slice(0, path.length)`, path from _computePath(options)).
const ENGINE_ATTACH = new Set(['26f048a18dd18a87639d9584e17889e5bf4cbf60', '444063f0c2299f5c8221496f8104b6894555da2b']);
const ENGINE_COMPUTE_PATH = new Set(['3f68e9ef4e307ba60062a2b8f910acb35ae449b5']);
// socket.io 4.7.0-4.8.3 and 4.8.4: Server.prototype.attachServe, whose client
// files all lie under `this._path` (4.7: a regex anchored there; 4.8.4:
// `req.url.startsWith(this._path)`).
const SOCKETIO_ATTACH_SERVE = new Set(['8fb0ccec7e62defa2f94dd309bf5b823d7b739fa', '30d66d727e13ef2e774cb0aee4789bd54f739384']);

// listener -> { prefix: () => string, next: the one listener it forwards to }
const gates = new WeakMap();
// Per package: copies adopted and copies left stock (a version not known).
const counters = { engineIo: { adopted: 0, unknownVersion: 0 }, socketIo: { adopted: 0, unknownVersion: 0 }, attached: 0, notForwardingOne: 0 };
const seen = new WeakSet(); // prototypes looked at, adopted or not
function firstLook(proto) {
  if (proto === undefined || seen.has(proto)) return false;
  seen.add(proto);
  return true;
}
const adopted = [];

// Notes the 'request' listener `install()` puts on `server`, if it replaced
// exactly one listener and is the server's one listener afterwards.
function noteInstall(server, install, prefix) {
  const before = typeof server?.listeners === 'function' ? server.listeners('request') : null;
  const result = install();
  if (before === null) return result;
  const after = server._events?.request;
  if (before.length === 1 && typeof after === 'function' && !before.includes(after)) {
    gates.set(after, { prefix, next: before[0] });
    counters.attached++;
  } else {
    counters.notForwardingOne++;
  }
  return result;
}

// One entry per method adopted; revert() puts the originals back and
// reapply() the wrappers again (the package uninstalled and installed again),
// as for the Express helpers. `wrapper` is null while reverted.
function wrapMethod(proto, name, makeWrapper) {
  const entry = { proto, name, original: proto[name], makeWrapper, wrapper: null };
  adopted.push(entry);
  putWrapper(entry);
}

function putWrapper(entry) {
  const wrapper = entry.makeWrapper(entry.original);
  Object.defineProperty(wrapper, 'name', { value: entry.original.name });
  entry.proto[entry.name] = wrapper;
  entry.wrapper = wrapper;
}

// engine.io's build/server.js: its Server class.
function adoptEngineIo(exports) {
  const proto = exports?.Server?.prototype;
  if (!firstLook(proto)) return;
  if (typeof proto.attach !== 'function' || typeof proto._computePath !== 'function' ||
      !ENGINE_ATTACH.has(sourceDigest(proto.attach)) || !ENGINE_COMPUTE_PATH.has(sourceDigest(proto._computePath))) {
    counters.engineIo.unknownVersion++;
    return;
  }
  wrapMethod(proto, 'attach', (original) => function attach(server) {
    if (pendingSocketIo !== null) {
      adoptSocketIo(pendingSocketIo.exports);
      pendingSocketIo = null;
    }
    const options = arguments[1] === undefined ? {} : arguments[1];
    if (options === null || typeof options !== 'object') return Reflect.apply(original, this, arguments);
    const path = this._computePath(options);
    return noteInstall(server, () => Reflect.apply(original, this, arguments), () => path);
  });
  counters.engineIo.adopted++;
}

// socket.io's module, as it loads engine.io: adopted at engine.io's first
// attach, once it has its exports (also when the app imported it as ESM,
// whose loads this package does not see).
let pendingSocketIo = null;
function adoptSocketIoLater(module) {
  pendingSocketIo = module;
}

// socket.io's exports: its Server class.
function adoptSocketIo(exports) {
  const proto = exports?.Server?.prototype;
  if (!firstLook(proto)) return;
  if (typeof proto.attachServe !== 'function' || !SOCKETIO_ATTACH_SERVE.has(sourceDigest(proto.attachServe))) {
    counters.socketIo.unknownVersion++;
    return;
  }
  wrapMethod(proto, 'attachServe', (original) => function attachServe(srv) {
    const io = this;
    return noteInstall(srv, () => Reflect.apply(original, this, arguments), () => io._path);
  });
  counters.socketIo.adopted++;
}

// The listener at the end of `listener`'s chain of gates, and the prefix
// readers on the way; `prefixes` is empty when `listener` is no gate.
function resolve(listener) {
  const prefixes = [];
  let gate;
  while ((gate = gates.get(listener)) !== undefined) {
    prefixes.push(gate.prefix);
    listener = gate.next;
  }
  return { target: listener, prefixes };
}

// Whether one of the gates takes `url` for itself (or may, for a non-string prefix).
function takenByGate(prefixes, url) {
  for (let i = 0; i < prefixes.length; i++) {
    const prefix = prefixes[i]();
    if (typeof prefix !== 'string' || url.startsWith(prefix)) return true;
  }
  return false;
}

function revert() {
  for (const entry of adopted) {
    if (entry.proto[entry.name] === entry.wrapper) entry.proto[entry.name] = entry.original;
    entry.wrapper = null;
  }
  pendingSocketIo = null;
}

function reapply() {
  for (const entry of adopted) if (entry.wrapper === null && entry.proto[entry.name] === entry.original) putWrapper(entry);
}

const snapshot = () => ({ ...counters, engineIo: { ...counters.engineIo }, socketIo: { ...counters.socketIo } });

module.exports = { adoptEngineIo, adoptSocketIo, adoptSocketIoLater, resolve, takenByGate, revert, reapply, snapshot };
