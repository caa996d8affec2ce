'use strict';
// http-fastpath: require() it (or `node -r http-fastpath`, `--import
// http-fastpath`) and Node's http module is patched in place as soon as the
// app loads it (lib/setup/triggers.js): a process that never serves HTTP
// loads nothing more than this file and the trigger. The Rust addon is
// loaded only when something asks for a native feature; without it every JS
// fast path still runs. HTTP_FASTPATH=0 turns everything off, =verify
// renders every head both ways and writes Node's (lib/response/verify.js);
// an unsupported Node leaves Node stock with one warning.

const stats = require('./setup/stats');
const { whenHttpLoads } = require('./setup/triggers');
const { loadNative, locate } = require('./native/loader');

const SUPPORTED = [20, 22, 24, 26];
const MAJOR = Number(process.versions.node.split('.')[0]);

// One state per process, even if two copies of the package are loaded.
const STATE = Symbol.for('http-fastpath.state');
const state = globalThis[STATE] ??= {
  installed: false, patches: null, adapter: undefined, armed: false, disarm: null, activatedBy: null,
  native: undefined, disabledReason: null, warned: false,
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

function prepare() {
  const why = refusal();
  if (why !== null) {
    state.disabledReason = why;
    if (why !== 'HTTP_FASTPATH=0') warnOnce(`http-fastpath disabled: ${why}; running stock Node`);
    return false;
  }
  if (state.adapter === undefined) {
    try {
      state.adapter = require('./response/adapters').makeAdapter(MAJOR);
    } catch (err) {
      state.adapter = null;
      state.disabledReason = err.message;
      warnOnce(`http-fastpath disabled: ${err.message}; running stock Node`);
    }
  }
  return state.adapter !== null;
}

function install(how = 'install()', server = undefined) {
  if (state.installed) return true;
  if (state.disarm !== null) {
    state.disarm();
    state.disarm = null;
  }
  if (!prepare()) return false;
  const patch = require('./setup/patch');
  state.patches = patch.plan(state.adapter, { verify: process.env.HTTP_FASTPATH === 'verify' });
  patch.apply(state.patches);
  state.installed = true;
  state.activatedBy = how;
  state.disabledReason = null;
  // Reached through a server's first request (ESM): that server listened unseen.
  if (server !== undefined) expressBinder()?.consider(server);
  return true;
}

function uninstall() {
  if (state.disarm !== null) {
    state.disarm();
    state.disarm = null;
  }
  if (!state.installed) return false;
  require('./setup/patch').revert(state.patches);
  state.patches = null;
  state.installed = false;
  return true;
}

function expressBinder() {
  return state.installed ? state.patches.find((p) => p.binder)?.binder : undefined;
}

// The addon, loaded on first use. A binary that exists but does not load is
// worth one warning; no binary at all is a normal install without Rust.
function native() {
  if (state.native === undefined) {
    state.native = loadNative();
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
      // Exported for measurement and for the native file path; no response
      // takes them today (README: "Native or JS: measured").
      messageBuilder: n.addon !== null,
      headerStore: n.addon !== null,
      validators: n.addon !== null,
    },
  };
}

function status() {
  const verifying = state.installed && state.patches[0].replacement.stats;
  return {
    node: process.version,
    major: MAJOR,
    supported: SUPPORTED.includes(MAJOR),
    active: state.installed,
    waitingForHttp: state.disarm !== null,
    activatedBy: state.activatedBy,
    mode: process.env.HTTP_FASTPATH === 'verify' ? 'verify' : 'fast',
    verified: verifying ? state.patches[0].replacement.stats() : undefined,
    disabledReason: state.disabledReason,
    patched: state.installed ? state.patches.map((p) => `${p.owner}.prototype.${p.name}`) : [],
    frameworks: { express: expressBinder()?.snapshot() },
    native: nativeStatus(),
    stats: stats.snapshot(),
  };
}

// At require time: arm the triggers (or refuse, with one warning for an
// unsupported Node). Idempotent across copies of the package.
if (!state.armed) {
  state.armed = true;
  if (refusal() !== null) {
    prepare();
  } else {
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
  resetStats: stats.reset,
  get native() { return native().addon; },
  locateNative: locate,
};
