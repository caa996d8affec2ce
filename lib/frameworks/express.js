'use strict';
// Express (4 and 5) swaps the prototypes of every request and response to
// its app's own (`Object.setPrototypeOf(req, app.request)` in app.handle or
// its init middleware). On Node 20 and 22 that swap is a V8 slow path that
// costs more than the rest of the request: every property added to an object
// after its prototype changed makes a new hidden class. When an Express app
// is a server's request listener, the server is given constructors whose
// `prototype` is the app's, so Node builds each req/res with Express's
// prototype from birth and Express's swap finds nothing to change.
//
// Shapes: the app itself as the 'request' listener (the first of several when
// the app swaps the prototypes first thing: graceful-shutdown helpers such as
// stoppable add a bookkeeping listener after it); beside 'upgrade' or
// 'connect' listeners (ws, a WebSocket server on the same port), whose
// requests are told apart per request (request-preview.js) and built stock;
// a listener that only forwards to one app (`(req, res) => app(req, res)`,
// recognised by its source), bound once its first request shows which app;
// and the app behind engine.io's and socket.io's listeners (request-gates.js),
// whose own paths are told apart per request by URL and built stock.
//
// Exactness: Node reads server[kIncomingMessage] / [kServerResponse] per
// request; each bound constructor re-checks, per request, that the objects it
// builds can only reach the app first (the same first 'request' listener; nothing that
// sees requests before or instead of it) and otherwise builds the stock
// object. So a listener added or removed later, an upgrade, a
// diagnostics_channel subscriber all see exactly what stock Node gives them.

const http = require('http');
const dc = require('diagnostics_channel');
const stats = require('../setup/stats');
const { listenerTables } = require('./event-tables');
const preview = require('./request-preview');
const gates = require('./request-gates');

const { IncomingMessage: NodeIncomingMessage, ServerResponse: NodeServerResponse } = http;
const getPrototypeOf = Object.getPrototypeOf;

// Channels that publish req/res before the 'request' listener runs.
const requestStart = dc.channel('http.server.request.start');
const responseCreated = dc.channel('http.server.response.created');

function serverSymbols(server) {
  let kIncomingMessage;
  let kServerResponse;
  for (const sym of Object.getOwnPropertySymbols(server)) {
    if (sym.description === 'IncomingMessage') kIncomingMessage = sym;
    else if (sym.description === 'ServerResponse') kServerResponse = sym;
  }
  return { kIncomingMessage, kServerResponse };
}

function inChain(obj, proto) {
  for (let p = obj; p !== null; p = getPrototypeOf(p)) if (p === proto) return true;
  return false;
}

// An Express 4/5 application function: app.handle, and request/response
// prototypes built on Node's own classes that point back to the app.
function isExpressApp(fn) {
  if (typeof fn !== 'function' || typeof fn.handle !== 'function' || typeof fn.set !== 'function') return false;
  const { request, response } = fn;
  return request !== null && typeof request === 'object' && request.app === fn &&
    response !== null && typeof response === 'object' && response.app === fn &&
    inChain(request, NodeIncomingMessage.prototype) && inChain(response, NodeServerResponse.prototype);
}

// A listener whose whole body passes its two arguments on to one function (or
// its `.handle`): `(req, res) => app(req, res)`, `function (req, res) { return
// app(req, res); }`. It reads nothing of them, so it cannot tell a request
// born with the app's prototypes from a stock one.
const FORWARDER = /^(?:function\b[\s\w$]*)?\(\s*([\w$]+)\s*,\s*([\w$]+)\s*\)\s*(?:=>)?\s*(\{\s*(?:return\s+)?)?([\w$]+)(\.handle)?\(\s*\1\s*,\s*\2\s*\)\s*;?\s*(\})?$/;
function isForwarder(fn) {
  if (typeof fn !== 'function' || fn.length !== 2) return false;
  const m = FORWARDER.exec(Function.prototype.toString.call(fn));
  return m !== null && (m[3] === undefined) === (m[6] === undefined) &&
    m[4] !== m[1] && m[4] !== m[2] && m[1] !== m[2];
}

// The top-level Express app a stock request was handed to, read from the
// prototype Express gave it, or null.
function appOf(req) {
  const proto = getPrototypeOf(req);
  if (proto === NodeIncomingMessage.prototype || proto === null) return null;
  const app = proto.app;
  return isExpressApp(app) && app.request === proto && app.parent === undefined ? app : null;
}

// Events whose listeners receive requests that never reach the app, and that
// nothing tells apart before the request is built.
const FOREIGN_EVENTS = ['checkContinue', 'checkExpectation', 'dropRequest'];

// Node 26 lets a server decide upgrades with a callback, and gives each server
// its own copy of the default one (upgrade when there is an 'upgrade'
// listener). A custom one is asked only about requests the parser flags as
// upgrades, which a bound server builds stock as it does for listeners.
let defaultUpgradeSource;
function isDefaultShouldUpgrade(fn) {
  if (fn === undefined) return true; // 20-24: no such callback
  defaultUpgradeSource ??= String(new http.Server().shouldUpgradeCallback);
  return typeof fn === 'function' && String(fn) === defaultUpgradeSource;
}

// Whether an upgrade or CONNECT request can reach a listener other than the app.
function takesUpgrades(server) {
  const ev = server._events;
  return ev.upgrade !== undefined || ev.connect !== undefined || !isDefaultShouldUpgrade(server.shouldUpgradeCallback);
}

// The 'request' listener that runs first: the entry itself, or the first of
// several (an EventEmitter's listener array).
const firstOf = (entry) => (typeof entry === 'function' ? entry : Array.isArray(entry) ? entry[0] : undefined);

// Whether `listener` (recognised as an app, a forwarder or a gate) hands
// every request to an Express app that swaps the prototypes before it
// returns: Express 5.1-5.3's app.handle (or the package's stand-in for it)
// does so first thing; Express 4's only once its router's init middleware
// runs, which a request matching no route (`OPTIONS *`) or an app without
// routes never reaches. Listeners after such an app see the app's
// prototypes in stock Node too, so being born with them changes nothing
// they can observe.
function swapsFirst(listener) {
  const { target } = gates.resolve(listener);
  return isExpressApp(target) && require('./express-helpers').swapsPrototypesFirst(target.handle);
}

// Why this HTTP server's requests cannot be born with the prototypes of the
// app its 'request' listener entry is or forwards to, or ''. Other listeners
// may follow the app; none may come before it. `ours`: the constructors the
// binder gave it, if any.
function refusal(server, entry, syms, ours) {
  if (entry === undefined) return 'noListener';
  const listener = firstOf(entry);
  if (typeof listener !== 'function') return 'manyListeners';
  const { target, prefixes } = gates.resolve(listener);
  if (!isExpressApp(target) && !(prefixes.length === 0 && isForwarder(listener))) {
    if (listener !== entry && entry.slice(1).some((l) => isExpressApp(gates.resolve(l).target) || isForwarder(l))) return 'listenerBeforeApp';
    return 'notExpress';
  }
  if (listener !== entry && !swapsFirst(listener)) return 'laterListeners';
  const request = server[syms.kIncomingMessage];
  const response = server[syms.kServerResponse];
  if ((request !== NodeIncomingMessage && request !== ours?.request) || (response !== NodeServerResponse && response !== ours?.response)) return 'customClasses';
  for (const name of FOREIGN_EVENTS) if (server._events[name] !== undefined) return 'foreignListener';
  return '';
}

function makeExpressBinder() {
  const bound = new Set(); // WeakRefs of the servers bound, for unbindAll()
  const byServer = new WeakMap();
  const counters = {
    bound: 0, stepAside: { __proto__: null },
    shapes: { app: 0, forwarder: 0, engineIo: 0, withUpgrades: 0, withLaterListeners: 0 }, forwardersLearning: 0,
  };

  function stockRequest(socket) {
    stats.count('express.request.stock');
    return new NodeIncomingMessage(socket);
  }

  // `prefixes`: the URL prefixes of the gates in front of the app (engine.io,
  // socket.io), whose requests are built stock.
  function makeConstructors(server, syms, app, listener, prefixes) {
    const { request: RequestListeners, response: ResponseListeners } = listenerTables();
    const reqProto = app.request;
    const resProto = app.response;
    const shouldUpgrade = server.shouldUpgradeCallback;
    const defaultUpgrade = isDefaultShouldUpgrade(shouldUpgrade);
    // Checked per request: cheap loads only (FOREIGN_EVENTS spelled out).
    const ownsRequests = () => {
      const ev = server._events;
      return firstOf(ev.request) === listener && ev.checkContinue === undefined && ev.checkExpectation === undefined &&
        ev.dropRequest === undefined && app.request === reqProto && app.response === resProto &&
        !requestStart.hasSubscribers && !responseCreated.hasSubscribers;
    };
    // An upgrade or CONNECT goes to its listeners (or Node 26's callback) as
    // stock builds it; so does a request a gate takes, and one whose kind or
    // URL is not known.
    const gated = prefixes.length > 0;
    const notForApp = (socket) => {
      if (gated) {
        const url = preview.requestUrl(socket);
        if (url === null || gates.takenByGate(prefixes, url)) {
          stats.count(url === null ? 'express.request.unwatched' : 'express.request.gate');
          return true;
        }
      }
      // takesUpgrades(), with the callback compared by identity: no source read per request.
      const ev = server._events;
      if (ev.upgrade === undefined && ev.connect === undefined && server.shouldUpgradeCallback === shouldUpgrade && defaultUpgrade) return false;
      const plain = preview.isPlainRequest(socket);
      if (plain === true) return false;
      stats.count(plain === null ? 'express.request.unwatched' : 'express.request.upgrade');
      return true;
    };
    // Node's constructors run on a fresh `this` whose prototype is the app's.
    // V8 sizes a constructor's instances by the `this.x =` assignments of the
    // functions on its own [[Prototype]] chain (as for Node's classes, whose
    // chain is ServerResponse → OutgoingMessage → Stream → EventEmitter), so
    // each constructor inherits from Node's: its instances then hold every
    // field in the object, like stock's, instead of spilling 15-18 of them
    // into a separately allocated, repeatedly grown property array.
    // Measured against Reflect.construct with the app's prototype as
    // new.target (benchmark/micro/express-birth.js and http/express.js):
    // that is ~50x slower on Node 20 and no faster on 22-26.
    // Each is named as Node's class is: V8 names a method's receiver in a
    // stack frame after the function that built it (`IncomingMessage.onEnd`),
    // and error trackers group errors by those frames.
    const boundRequest = function IncomingMessage(socket) {
      if (!ownsRequests()) return afterListenerChange(server, syms, listener, socket);
      if (notForApp(socket)) return stockRequest(socket);
      // A listener table that V8 cannot pretenure (event-tables.js).
      if (RequestListeners !== null) this._events = new RequestListeners();
      NodeIncomingMessage.call(this, socket);
    };
    boundRequest.prototype = reqProto;
    Object.setPrototypeOf(boundRequest, NodeIncomingMessage);
    const boundResponse = function ServerResponse(req, options) {
      // Built right after its request, in the same parser callback.
      if (getPrototypeOf(req) !== reqProto) return new NodeServerResponse(req, options);
      if (ResponseListeners !== null) this._events = new ResponseListeners();
      NodeServerResponse.call(this, req, options);
    };
    boundResponse.prototype = resProto;
    Object.setPrototypeOf(boundResponse, NodeServerResponse);
    return { boundRequest, boundResponse };
  }

  function stepAside(why) {
    counters.stepAside[why] = (counters.stepAside[why] || 0) + 1;
  }

  // A server's connections are watched, from their start, while it holds one
  // of the binder's constructors (a forwarder's connections that start while
  // it learns are then known once it is bound) and upgrades can reach another
  // listener, or a gate is in front of the app (see notForApp).
  let watching = false;
  const needsWatch = (server) => {
    const b = byServer.get(server);
    return b !== undefined && server[b.syms.kIncomingMessage] === b.request && (b.gated || takesUpgrades(server));
  };

  function bind(server, syms, app, listener, shape, prefixes) {
    const { boundRequest, boundResponse } = makeConstructors(server, syms, app, listener, prefixes);
    server[syms.kIncomingMessage] = boundRequest;
    server[syms.kServerResponse] = boundResponse;
    const upgrades = takesUpgrades(server);
    const later = server._events.request !== listener;
    byServer.set(server, { syms, request: boundRequest, response: boundResponse, gated: prefixes.length > 0, shape, upgrades, later });
    watchConnections();
    counters.bound++;
    counters.shapes[shape]++;
    if (upgrades) counters.shapes.withUpgrades++;
    if (later) counters.shapes.withLaterListeners++;
    return boundRequest;
  }

  // A forwarding listener: its requests are built stock until one of them
  // has been through the app it forwards to (Express swapped its prototype
  // to that app's); from then on, bound to that app.
  // A forwarder whose first LEARNING_LIMIT requests showed no Express app
  // (it forwards to something else) gets Node's constructor back.
  const LEARNING_LIMIT = 16;
  function learnForwarder(server, syms, listener) {
    let last = null;
    let seen = 0;
    const learning = function IncomingMessage(socket) {
      const app = last === null ? null : appOf(last);
      if (app !== null && server[syms.kIncomingMessage] === learning && server._events.request === listener) {
        last = null;
        counters.forwardersLearning--;
        return new (bind(server, syms, app, listener, 'forwarder', []))(socket);
      }
      if (++seen > LEARNING_LIMIT && server[syms.kIncomingMessage] === learning) {
        server[syms.kIncomingMessage] = NodeIncomingMessage;
        counters.forwardersLearning--;
        stepAside('forwarderNotExpress');
        last = null;
        return stockRequest(socket);
      }
      last = stockRequest(socket);
      return last;
    };
    server[syms.kIncomingMessage] = learning;
    byServer.set(server, { syms, request: learning, response: NodeServerResponse, gated: false });
    watchConnections();
    counters.forwardersLearning++;
  }

  function watchConnections() {
    if (watching) return;
    preview.watch(needsWatch);
    watching = true;
  }

  // Called when a server starts listening.
  function consider(server) {
    if (byServer.has(server)) return;
    const syms = serverSymbols(server);
    // A net/tls server: not ours to count.
    if (syms.kIncomingMessage === undefined || syms.kServerResponse === undefined) return;
    const why = refusal(server, server._events.request, syms);
    if (why !== '') {
      stepAside(why);
      return;
    }
    const listener = firstOf(server._events.request);
    bound.add(new WeakRef(server));
    const { target, prefixes } = gates.resolve(listener);
    if (prefixes.length > 0) bind(server, syms, target, listener, 'engineIo', prefixes);
    else if (isExpressApp(listener)) bind(server, syms, listener, listener, 'app', prefixes);
    else learnForwarder(server, syms, listener);
  }

  // A bound server whose 'request' listener is no longer the one it was bound
  // for: engine.io or socket.io attached after it listened (`app.listen()`,
  // then `new Server(server)`) puts a gate in front of the same app, and the
  // server is bound again behind it. Anything else: this request is stock, and
  // the next ones too (checked once per listener).
  function afterListenerChange(server, syms, listener, socket) {
    const b = byServer.get(server);
    const entry = server._events.request;
    const now = firstOf(entry);
    if (now === listener || b === undefined || server[syms.kIncomingMessage] !== b.request || b.triedListener === now || typeof now !== 'function') {
      return stockRequest(socket);
    }
    b.triedListener = now;
    const { target, prefixes } = gates.resolve(now);
    if (target !== gates.resolve(listener).target || refusal(server, entry, syms, b) !== '') return stockRequest(socket);
    // Counted once per server, in its latest shape.
    counters.bound--;
    counters.shapes[b.shape]--;
    if (b.upgrades) counters.shapes.withUpgrades--;
    if (b.later) counters.shapes.withLaterListeners--;
    return new (bind(server, syms, target, now, 'engineIo', prefixes))(socket);
  }

  // Puts Node's own classes back on every server still bound to ours.
  function unbindAll() {
    preview.unwatch();
    for (const ref of bound) {
      const server = ref.deref();
      if (server === undefined) continue;
      const b = byServer.get(server);
      if (server[b.syms.kIncomingMessage] === b.request) server[b.syms.kIncomingMessage] = NodeIncomingMessage;
      if (server[b.syms.kServerResponse] === b.response) server[b.syms.kServerResponse] = NodeServerResponse;
      byServer.delete(server);
    }
    bound.clear();
  }

  function snapshot() {
    let live = 0;
    for (const ref of bound) if (ref.deref() !== undefined) live++;
    const tables = listenerTables();
    return {
      bound: counters.bound, live, stepAside: { ...counters.stepAside },
      shapes: { ...counters.shapes }, forwardersLearning: counters.forwardersLearning, gates: gates.snapshot(),
      listenerTables: ['request', 'response'].filter((kind) => tables[kind] !== null),
    };
  }

  return { consider, unbindAll, snapshot };
}

module.exports = { makeExpressBinder, isExpressApp, isForwarder };
