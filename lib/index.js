'use strict';
// http-fastpath: require() it (or `node -r http-fastpath`, `--import
// http-fastpath`) and Node's http module is patched in place as soon as the
// app loads it (the triggers below): a process that never serves HTTP
// loads nothing more than this file. The Rust addon is
// loaded only when something asks for a native feature; without it every JS
// fast path still runs. HTTP_FASTPATH=0 turns everything off, =verify
// renders every head both ways and writes Node's (lib/response/verify.js);
// an unsupported Node leaves Node stock with one warning.

// A preload loads this file and the package-load table
// (lib/frameworks/package-loads.js: measured on Node 24, the second file adds
// nothing to a preloaded process's peak RSS, 47.0 MiB either way); every
// other module is required when needed.

// --- Triggers ------------------------------------------------------------
// Nothing is patched until the app loads Node's HTTP stack. Patching
// waits for the first of:
//   - a CommonJS require of http, https, http2 or an _http_* module (any
//     spelling: 'http', 'node:http'), through Module._load, which every
//     require() goes through, also those of CommonJS packages imported from ESM;
//   - the first HTTP/1 request of any server ('http.server.request.start'):
//     the net for ESM code that imports node:http itself, whose builtins do
//     not pass through Module._load. Patches live on prototypes, so that
//     request's response already takes them.
// Each hook is removed when it fires, so afterwards nothing here runs again.

const Module = require('module');
const dc = require('diagnostics_channel');

const HTTP_MODULES = ['http', 'https', 'http2', '_http_server', '_http_outgoing', '_http_incoming',
  '_http_client', '_http_common', '_http_agent'];

function bare(request) {
  return typeof request === 'string' && request.startsWith('node:') ? request.slice(5) : request;
}

function loaded(names) {
  const list = process.moduleLoadList;
  return names.some((name) => list.includes(`NativeModule ${name}`));
}

// Calls onLoad() once, right after the first require() of one of `names`
// returns (at once if one is already loaded). Returns a disarm function.
function onRequire(names, onLoad) {
  if (loaded(names)) {
    onLoad();
    return () => {};
  }
  const wanted = new Set(names);
  const originalLoad = Module._load;
  let fired = false;
  function _load(request) {
    const exports = Reflect.apply(originalLoad, this, arguments);
    if (!fired && wanted.has(bare(request))) {
      disarm();
      onLoad();
    }
    return exports;
  }
  function disarm() {
    fired = true;
    // Someone may have wrapped Module._load over ours: theirs stays, ours passes through.
    if (Module._load === _load) Module._load = originalLoad;
  }
  Module._load = _load;
  return disarm;
}

// Calls onHttp(how, server) once, when the app first needs HTTP. `server`
// is the server of the first request when that is what fired.
function whenHttpLoads(onHttp) {
  let fired = false;
  let disarmRequire = () => {};
  function onRequestStart(message) {
    if (!fired) fire('first request', message.server);
  }
  function disarm() {
    fired = true;
    disarmRequire();
    // Not synchronously: this can run inside the channel's own publish loop.
    process.nextTick(() => dc.unsubscribe('http.server.request.start', onRequestStart));
  }
  function fire(how, server) {
    disarm();
    onHttp(how, server);
  }
  if (loaded(HTTP_MODULES)) {
    fire('already loaded', undefined);
    return () => {};
  }
  dc.subscribe('http.server.request.start', onRequestStart);
  disarmRequire = onRequire(HTTP_MODULES, () => { if (!fired) fire('require', undefined); });
  return disarm;
}

// --- State and API -------------------------------------------------------

const SUPPORTED = [20, 22, 24, 26];
const MAJOR = Number(process.versions.node.split('.')[0]);

// One state per process, even if two copies of the package are loaded.
const STATE = Symbol.for('http-fastpath.state');
const state = globalThis[STATE] ??= {
  installed: false, patches: null, adapter: undefined, armed: false, disarm: null, disarmHttp2: null, disarmZlib: null, activatedBy: null,
  native: undefined, fileSender: undefined, disabledReason: null, warned: false, zlibMode: undefined, zlibWatch: null, disarmPackages: null,
  http2Counters: { lateTrailers: 0, stockReason: null },
};

function warnOnce(message) {
  if (state.warned) return;
  state.warned = true;
  process.emitWarning(message, { type: 'HttpFastpathWarning', code: 'HTTP_FASTPATH_DISABLED' });
}

// Why nothing may be patched in this process, or null.
function refusal() {
  if (process.env.HTTP_FASTPATH === '0') return 'HTTP_FASTPATH=0';
  if (!SUPPORTED.includes(MAJOR)) return `Node ${process.version} is not supported (supported: ${SUPPORTED.join(', ')})`;
  return null;
}

// Reads what the running Node does (lib/response/adapters.js) once. False
// when the package must not run at all: then nothing of it is in place, the
// framework stand-ins included. A part of the response path that matches no
// verified form stays stock on its own, with one warning.
function prepare() {
  const why = refusal();
  if (why !== null) {
    state.disabledReason = why;
    if (why !== 'HTTP_FASTPATH=0') warnOnce(`http-fastpath disabled: ${why}; running stock Node`);
    return false;
  }
  if (state.adapter === undefined) {
    try {
      state.adapter = require('./response/adapters').makeAdapter();
    } catch (err) {
      state.adapter = null;
      state.disabledReason = err.message;
      warnOnce(`http-fastpath disabled: ${err.message}; running stock Node`);
      if (state.disarmPackages !== null) {
        state.disarmPackages();
        state.disarmPackages = null;
      }
      return false;
    }
    const stock = Object.entries(state.adapter.parts).filter(([, p]) => !p.on);
    if (stock.length !== 0) {
      warnOnce(`http-fastpath: on Node ${process.version} ${stock.map(([name, p]) => `the response ${name} part stays stock: ${p.reason}`).join('; ')} (status().parts; docs/node-versions.md)`);
    }
  }
  return state.adapter !== null;
}

// Whether the package runs in this process, decided before any framework
// stand-in is handed out: the decision reads Node's http internals, which a
// framework being loaded is about to load anyway (the require fires install()).
function decided() {
  if (state.adapter === undefined) {
    require('http');
    if (state.adapter === undefined) prepare();
  }
  return state.adapter !== null;
}

// Loaded when the app loads Express, not before.
const HELPERS = require.resolve('./frameworks/express-helpers');
const expressHelpersLoaded = () => require.cache[HELPERS] !== undefined;
const expressHelpers = () => require(HELPERS);
const GATES = require.resolve('./frameworks/request-gates');
const requestGates = () => require(GATES);
// Rooms of stand-ins, which answer through the real modules while the package
// is not installed: each is loaded when a package it waits for loads, told then
// whether the package is installed, and told again at install()/uninstall().
function standInRoom(file) {
  const resolved = require.resolve(file);
  const loaded = () => require.cache[resolved] !== undefined;
  return {
    get: () => {
      const module = require(resolved);
      module.setActive(state.installed);
      return module;
    },
    setActive: (on) => { if (loaded()) require(resolved).setActive(on); },
    snapshot: () => (loaded() ? require(resolved).snapshot() : undefined),
  };
}
const BODY_PARSERS = standInRoom('./frameworks/body-parsers');
const KOA_HELPERS = standInRoom('./frameworks/koa-helpers');
const STAND_IN_ROOMS = [BODY_PARSERS, KOA_HELPERS];

// Arms the package-load hook (lib/frameworks/package-loads.js) for the
// frameworks not switched off: Express and its middlewares
// (HTTP_FASTPATH_EXPRESS=0), Koa (HTTP_FASTPATH_KOA=0).
function armPackageLoads() {
  if (state.disarmPackages !== null || refusal() !== null) return;
  const which = { express: process.env.HTTP_FASTPATH_EXPRESS !== '0', koa: process.env.HTTP_FASTPATH_KOA !== '0' };
  if (!which.express && !which.koa) return;
  state.disarmPackages = require('./frameworks/package-loads').arm({ expressHelpers, requestGates, bodyParsers: BODY_PARSERS.get, koaHelpers: KOA_HELPERS.get, ready: decided }, which);
}

function install(how = 'install()', server = undefined) {
  if (state.installed) return true;
  if (state.disarm !== null) {
    state.disarm();
    state.disarm = null;
  }
  if (!prepare()) return false;
  const patch = require('./setup/patch');
  const listenWork = process.env.HTTP_FASTPATH_SENDFILE !== '0' || require('./setup/allocator').refusal() === null;
  const options = { verify: process.env.HTTP_FASTPATH === 'verify', sender: fileSender, onFirstListen: listenWork ? onFirstListen : null };
  state.patches = patch.plan(state.adapter, options);
  patch.apply(state.patches);
  state.installed = true;
  armPackageLoads();
  if (state.disarmPackages !== null && expressHelpersLoaded()) expressHelpers().applyAll();
  if (state.disarmPackages !== null && require.cache[GATES] !== undefined) requestGates().reapply();
  for (const room of STAND_IN_ROOMS) room.setActive(true);
  // Patches planned later, when the app loads a module: applied, and undone by uninstall().
  const applyMore = (more) => {
    patch.apply(more);
    state.patches.push(...more);
  };
  // HTTP/2's compat response is patched when (if) the app loads http2.
  state.disarmHttp2 = onRequire(['http2'], () => {
    state.disarmHttp2 = null;
    if (!state.installed) return;
    applyMore(patch.planHttp2(state.adapter, { ...options, http2Counters: state.http2Counters }));
  });
  // Codec jobs: decided, and patched where small ones run inline, when (if)
  // the app loads zlib (lib/zlib/mode.js).
  state.disarmZlib = onRequire(['zlib'], () => {
    state.disarmZlib = null;
    if (!state.installed) return;
    const mode = state.zlibMode = { ...require('./zlib/mode').decide(), switches: 0 };
    const inlineJobs = () => require('./zlib/inline-jobs');
    let patched = false;
    const inlineFrom = (now) => {
      if (!patched) applyMore(inlineJobs().planInlineJobs(require('zlib'), () => native().addon));
      patched = true;
      inlineJobs().setEnabled(now);
    };
    if (mode.inline) inlineFrom(true);
    if (!mode.adaptive) return;
    // Where the cores are shared, jobs follow the measurement (lib/zlib/contention.js).
    const contention = require('./zlib/contention');
    state.zlibWatch = contention.watch(contention.systemSources({ quota: mode.quota, cgroupDir: mode.quotaDir }), (inline) => {
      mode.inline = inline;
      mode.switches++;
      mode.reason = require('./zlib/mode').REASONS[inline ? 'inline' : 'pool'];
      inlineFrom(inline);
    });
  });
  state.activatedBy = how;
  state.disabledReason = null;
  // Reached through a server's first request (ESM): that server listened unseen.
  if (server !== undefined) expressBinder()?.consider(server);
  return true;
}

function uninstall() {
  if (state.zlibWatch) {
    state.zlibWatch.stop();
    state.zlibWatch = null;
  }
  for (const key of ['disarm', 'disarmHttp2', 'disarmZlib', 'disarmPackages']) {
    if (state[key] !== null) {
      state[key]();
      state[key] = null;
    }
  }
  if (!state.installed) return false;
  if (expressHelpersLoaded()) expressHelpers().revertAll();
  if (require.cache[GATES] !== undefined) requestGates().revert();
  require('./setup/patch').revert(state.patches);
  state.patches = null;
  state.installed = false;
  for (const room of STAND_IN_ROOMS) room.setActive(false);
  return true;
}

// The addon when it can send files natively, else null (first asked by the
// first file response that qualifies).
function fileSender() {
  if (state.fileSender === undefined) {
    const { addon } = native();
    state.fileSender = addon !== null && typeof addon.sendFile === 'function' && addon.sendFileSupported() ? addon : null;
  }
  return state.fileSender;
}

// The first HTTP server listens: load the addon for the file path, and apply
// the allocator settings (each unless switched off).
function onFirstListen(filePath) {
  if (filePath) fileSender();
  const allocator = require('./setup/allocator');
  allocator.apply(allocator.refusal() === null ? native().addon : null);
}

// Where codec jobs run and why, with the jobs run inline and left to the
// pool while that patch is in; undefined until the app loads zlib.
function zlibCounts() {
  if (!state.installed || state.zlibMode === undefined) return undefined;
  const { inline, reason, cpus, adaptive, switches } = state.zlibMode;
  const patched = state.patches.some((p) => p.owner.startsWith('zlib.'));
  const counts = patched ? require('./zlib/inline-jobs').snapshot() : { inline: 0, pooled: {}, trims: 0 };
  // `idleCores`: the idle CPU measured last, in cores (adaptive mode only).
  const measured = adaptive ? { switches, idleCores: state.zlibWatch?.lastIdle() ?? null } : {};
  return { mode: inline ? 'inline' : 'pool', reason, cpus, ...measured, ...counts };
}

// The native file path's counters, while it is patched in.
function fileCounts() {
  const patched = state.installed && state.patches.some((p) => p.owner === 'fs.ReadStream');
  return patched ? require('./file/read-stream-pipe').snapshot() : undefined;
}

// The binding's counters (while installed) and, once Express was loaded,
// which of its helpers are accelerated per copy and which copies stay stock.
function expressStatus() {
  const binding = expressBinder()?.snapshot();
  if (binding === undefined || !expressHelpersLoaded()) return binding;
  return { ...binding, helpers: expressHelpers().snapshot() };
}

function expressBinder() {
  return state.installed ? state.patches.find((p) => p.binder)?.binder : undefined;
}

// The addon, loaded on first use. A binary that exists but does not load is
// worth one warning; no binary at all is a normal install without Rust.
function native() {
  if (state.native === undefined) {
    state.native = require('./native/loader').loadNative();
    const { error } = state.native;
    if (error && error.code !== 'HTTP_FASTPATH_NO_BINARY') {
      warnOnce(`http-fastpath: native addon ${state.native.file} failed to load (${error.message.split('\n')[0]}); native features are off, the JS fast paths are not affected`);
    }
  }
  return state.native;
}

function nativeStatus() {
  const n = native();
  return {
    loaded: n.addon !== null,
    platform: n.platform,
    source: n.source,
    file: n.file,
    reason: n.error ? n.error.message.split('\n')[0] : null,
    features: {
      // Exported for measurement; no response takes them today (docs/response-path.md:
      // "Native or JS: measured").
      messageBuilder: n.addon !== null,
      headerStore: n.addon !== null,
      validators: n.addon !== null,
      // Used: fs.ReadStream piped into a response (lib/file/read-stream-pipe.js).
      sendfile: fileSender() !== null,
    },
  };
}

// Per part of the response path: on, or stock and why (null until the
// package has read the running Node).
function partsStatus() {
  const parts = state.adapter?.parts;
  if (parts === undefined) return null;
  const out = {};
  for (const [name, { on, reason }] of Object.entries(parts)) out[name] = { on: on && state.installed, reason: on ? null : reason };
  return out;
}

function status() {
  const verifying = state.installed && state.patches.find((p) => p.replacement?.stats)?.replacement.stats;
  return {
    node: process.version,
    major: MAJOR,
    supported: SUPPORTED.includes(MAJOR),
    active: state.installed,
    waitingForHttp: state.disarm !== null,
    activatedBy: state.activatedBy,
    mode: process.env.HTTP_FASTPATH === 'verify' ? 'verify' : 'fast',
    verified: verifying ? verifying() : undefined,
    disabledReason: state.disabledReason,
    parts: partsStatus(),
    patched: state.installed ? state.patches.map((p) => `${p.owner}.prototype.${p.label ?? p.name}`) : [],
    http2: { ...state.http2Counters },
    frameworks: {
      express: expressStatus(),
      bodyParsers: BODY_PARSERS.snapshot(),
      koa: KOA_HELPERS.snapshot(),
    },
    files: fileCounts(),
    zlib: zlibCounts(),
    allocator: require('./setup/allocator').snapshot(),
    native: nativeStatus(),
    stats: require('./setup/stats').snapshot(),
  };
}

// At require time: arm the triggers (or refuse, with one warning for an
// unsupported Node). Idempotent across copies of the package.
if (!state.armed) {
  state.armed = true;
  if (refusal() !== null) {
    prepare();
  } else {
    armPackageLoads();
    let fired = false;
    const disarm = whenHttpLoads((how, server) => {
      fired = true;
      state.disarm = null;
      install(how, server);
    });
    if (!fired) state.disarm = disarm;
  }
}

module.exports = {
  install, uninstall, status,
  resetStats: () => require('./setup/stats').reset(),
  get native() { return native().addon; },
  locateNative: () => require('./native/loader').locate(),
};
