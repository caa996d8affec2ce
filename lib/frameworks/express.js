'use strict';
// Express (4 and 5) swaps the prototypes of every request and response to
// its app's own (`Object.setPrototypeOf(req, app.request)` in app.handle or
// its init middleware). On Node 20 and 22 that swap is a V8 slow path that
// costs more than the rest of the request. When an Express app is a server's
// only request listener, the server is given constructors whose `prototype`
// is the app's, so Node builds each req/res with Express's prototype from
// birth and Express's swap finds nothing to change.
//
// Exactness: Node reads server[kIncomingMessage] / [kServerResponse] per
// request; each bound constructor re-checks, per request, that the objects it
// builds can only reach the app (one 'request' listener, the app; nothing
// that sees requests before or instead of it), and otherwise builds the stock
// object. So a listener added or removed later, an 'upgrade' handler, a
// diagnostics_channel subscriber all see exactly what stock Node gives them.

const http = require('http');
const dc = require('diagnostics_channel');
const stats = require('../setup/stats');
const { listenerTables } = require('./event-tables');

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

// Events whose listeners would receive a request that never reaches the app.
const FOREIGN_EVENTS = ['upgrade', 'connect', 'checkContinue', 'checkExpectation', 'dropRequest'];

// Node 26 lets a server decide upgrades with a callback, and gives each server
// its own copy of the default one (upgrade when there is an 'upgrade'
// listener); only that default is known never to route a request elsewhere.
let defaultUpgradeSource;
function isDefaultShouldUpgrade(fn) {
  if (fn === undefined) return true; // 20-24: no such callback
  defaultUpgradeSource ??= String(new http.Server().shouldUpgradeCallback);
  return typeof fn === 'function' && String(fn) === defaultUpgradeSource;
}

// Why this HTTP server's requests cannot be born with the prototypes of
// `listener` (its 'request' listener entry), or ''.
function refusal(server, listener, syms) {
  if (listener === undefined) return 'noListener';
  if (typeof listener !== 'function') return 'manyListeners';
  if (!isExpressApp(listener)) return 'notExpress';
  if (server[syms.kIncomingMessage] !== NodeIncomingMessage || server[syms.kServerResponse] !== NodeServerResponse) return 'customClasses';
  for (const name of FOREIGN_EVENTS) if (server._events[name] !== undefined) return 'foreignListener';
  if (!isDefaultShouldUpgrade(server.shouldUpgradeCallback)) return 'shouldUpgradeCallback';
  return '';
}

function makeExpressBinder() {
  const bound = new Set(); // WeakRefs of the servers bound, for unbindAll()
  const byServer = new WeakMap();
  const counters = { bound: 0, stepAside: { __proto__: null } };

  function stockRequest(socket) {
    stats.count('express.request.stock');
    return new NodeIncomingMessage(socket);
  }

  function makeConstructors(server, app) {
    const { request: RequestListeners, response: ResponseListeners } = listenerTables();
    const reqProto = app.request;
    const resProto = app.response;
    const shouldUpgrade = server.shouldUpgradeCallback;
    // Checked per request: cheap loads only (FOREIGN_EVENTS spelled out).
    const ownsRequests = () => {
      const ev = server._events;
      return ev.request === app && ev.upgrade === undefined && ev.connect === undefined &&
        ev.checkContinue === undefined && ev.checkExpectation === undefined && ev.dropRequest === undefined &&
        app.request === reqProto && app.response === resProto &&
        server.shouldUpgradeCallback === shouldUpgrade &&
        !requestStart.hasSubscribers && !responseCreated.hasSubscribers;
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
      if (!ownsRequests()) return stockRequest(socket);
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

  // Called when a server starts listening.
  function consider(server) {
    if (byServer.has(server)) return;
    const syms = serverSymbols(server);
    // A net/tls server: not ours to count.
    if (syms.kIncomingMessage === undefined || syms.kServerResponse === undefined) return;
    const app = server._events.request;
    const why = refusal(server, app, syms);
    if (why !== '') {
      stepAside(why);
      return;
    }
    const { boundRequest, boundResponse } = makeConstructors(server, app);
    server[syms.kIncomingMessage] = boundRequest;
    server[syms.kServerResponse] = boundResponse;
    byServer.set(server, { syms, boundRequest, boundResponse });
    bound.add(new WeakRef(server));
    counters.bound++;
  }

  // Puts Node's own classes back on every server still bound to ours.
  function unbindAll() {
    for (const ref of bound) {
      const server = ref.deref();
      if (server === undefined) continue;
      const b = byServer.get(server);
      if (server[b.syms.kIncomingMessage] === b.boundRequest) server[b.syms.kIncomingMessage] = NodeIncomingMessage;
      if (server[b.syms.kServerResponse] === b.boundResponse) server[b.syms.kServerResponse] = NodeServerResponse;
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
      listenerTables: ['request', 'response'].filter((kind) => tables[kind] !== null),
    };
  }

  return { consider, unbindAll, snapshot };
}

module.exports = { makeExpressBinder, isExpressApp };
