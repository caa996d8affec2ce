'use strict';
// Packages recognised as they load: one Module._load hook for all of them.
// Each entry names the request it waits for, the files of the module that asks
// it (null: any), and what its room (lib/frameworks/express-helpers.js,
// request-gates.js, body-parsers.js, koa-helpers.js) does with the exports, that module and its
// package directory. An entry with `substitute` instead of `loaded` returns
// what that module gets in place of the exports (require.cache keeps the real
// ones). What it costs any other require() is one Map lookup. Stays armed: an
// app may load several copies of a package.
//
// Loaded by a preload (an Express may load before http does), so it holds
// only this table and the hook: each room is required on its first entry.

const Module = require('module');

const both = (files) => files.flatMap((f) => [`/${f}`, `\\${f.replaceAll('/', '\\')}`]);
const APPLICATION_FILES = both(['lib/application.js']);
const EXPRESS_FILES = both(['lib/express.js']);
const ENGINEIO_FILES = both(['engine.io/build/engine.io.js']);
const SOCKETIO_FILES = both(['socket.io/dist/index.js']);
const BODY_PARSER_TYPE_FILES = both(['utils.js', 'types/json.js', 'types/urlencoded.js', 'types/text.js', 'types/raw.js']
  .map((f) => `body-parser/lib/${f}`));
const RAW_BODY_FILES = both(['raw-body/index.js']);
const KOA_CONTEXT_FILES = both(['koa/lib/context.js']);
const KOA_RESPONSE_FILES = both(['koa/lib/response.js']);

// Express's lib/utils.js and router, as its lib/application.js loads them
// (before lib/response.js takes setCharset from utils by value); its
// lib/response.js and lib/application.js, as lib/express.js loads them, before
// any app is created. engine.io's build/server.js as its build/engine.io.js
// loads it (however the app reached engine.io), socket.io as the app requires
// it or as its dist/index.js requires engine.io. type-is as body-parser's type
// checks require it, iconv-lite as raw-body requires it. delegates as Koa's
// lib/context.js requires it, mime-types as its lib/response.js does
// (lib/frameworks/koa-helpers.js).
// `rooms` gives each room's module: { expressHelpers(), requestGates(),
// bodyParsers(), koaHelpers() }, and ready(); `express` and `koa` say which
// to watch.
function entries(rooms, { express, koa }) {
  const helpers = rooms.expressHelpers;
  const gates = rooms.requestGates;
  const bodies = rooms.bodyParsers;
  const koaEntries = [
    { request: 'delegates', askedBy: KOA_CONTEXT_FILES, substitute: (Delegator, context) => rooms.koaHelpers().delegatesFor(Delegator, context.filename) },
    { request: 'mime-types', askedBy: KOA_RESPONSE_FILES, substitute: (mime, response) => rooms.koaHelpers().mimeTypesFor(mime, response.filename) },
  ];
  const expressEntries = [
    { request: './utils', askedBy: APPLICATION_FILES, loaded: (utils, application, dir) => helpers().adopt(utils, dir, application) },
    { request: 'router', askedBy: APPLICATION_FILES, loaded: (Router, application, dir) => helpers().adoptRouter(Router, dir, application) },
    { request: './application', askedBy: EXPRESS_FILES, loaded: (proto, express, dir) => helpers().adoptApplication(proto, dir, express) },
    { request: './response', askedBy: EXPRESS_FILES, loaded: (response, express, dir) => helpers().adoptResponse(response, dir, express) },
    { request: './server', askedBy: ENGINEIO_FILES, loaded: (server) => gates().adoptEngineIo(server) },
    { request: 'engine.io', askedBy: SOCKETIO_FILES, loaded: (engineIo, socketIo) => gates().adoptSocketIoLater(socketIo) },
    { request: 'socket.io', askedBy: null, loaded: (socketIo) => gates().adoptSocketIo(socketIo) },
    { request: 'type-is', askedBy: BODY_PARSER_TYPE_FILES, substitute: (typeis) => bodies().typeIsFor(typeis) },
    { request: 'iconv-lite', askedBy: RAW_BODY_FILES, substitute: (iconv, rawBody) => bodies().iconvFor(iconv, rawBody.filename) },
  ];
  return [...(express ? expressEntries : []), ...(koa ? koaEntries : [])];
}

// The directory `filename` is in, less one of `suffixes`, or undefined.
function packageDir(filename, suffixes) {
  const suffix = suffixes.find((s) => filename.endsWith(s));
  return suffix === undefined ? undefined : filename.slice(0, -suffix.length);
}

// `ready()` says, the first time a watched package loads, whether the
// package runs in this process at all; where it does not, nothing is handed
// out and the hook stands down.
function watch(list, ready) {
  const byRequest = new Map();
  for (const entry of list) byRequest.set(entry.request, [...(byRequest.get(entry.request) ?? []), entry]);
  const originalLoad = Module._load;
  let armed = true;
  function _load(request, parent) {
    const exports = Reflect.apply(originalLoad, this, arguments);
    const wanted = armed ? byRequest.get(request) : undefined;
    if (wanted === undefined) return exports;
    if (!ready()) {
      disarm();
      return exports;
    }
    let handed = exports;
    for (const { askedBy, loaded, substitute } of wanted) {
      let dir;
      if (askedBy !== null) {
        if (typeof parent?.filename !== 'string') continue;
        dir = packageDir(parent.filename, askedBy);
        if (dir === undefined) continue;
      }
      if (substitute !== undefined) handed = substitute(exports, parent, dir);
      else loaded(exports, parent, dir);
    }
    return handed;
  }
  function disarm() {
    armed = false;
    // Someone may have wrapped Module._load over ours: theirs stays, ours passes through.
    if (Module._load === _load) Module._load = originalLoad;
  }
  Module._load = _load;
  return disarm;
}

// Arms the hook for the rooms `which` names ({ express, koa }); returns the
// disarm function. An Express already loaded has handed its helpers out: it
// stays stock, and its room is told so (status() says it).
function arm(rooms, which) {
  const disarm = watch(entries(rooms, which), rooms.ready);
  if (!which.express) return disarm;
  const before = Object.keys(require.cache).filter((file) => packageDir(file, APPLICATION_FILES) !== undefined);
  if (before.length !== 0 && !rooms.ready()) {
    disarm();
    return disarm;
  }
  for (const file of before) rooms.expressHelpers().loadedBefore(packageDir(file, APPLICATION_FILES));
  return disarm;
}

module.exports = { arm };
