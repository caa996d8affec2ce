'use strict';
// http-fastpath: require() it (or `node -r http-fastpath`) and Node's http
// module is patched in place. HTTP_FASTPATH=0 turns it off, =verify renders
// every head both ways and writes Node's (lib/verify.js); an unsupported
// Node or an addon that does not load leaves Node stock with one warning.

const { makeAdapter, SUPPORTED } = require('./adapters');
const { loadNative } = require('./native');
const patch = require('./patch');
const stats = require('./stats');

// One state per process, even if two copies of the package are loaded.
const STATE = Symbol.for('http-fastpath.state');
const state = globalThis[STATE] ??= {
  installed: false, patches: null, adapter: undefined, native: undefined,
  disabledReason: null, warned: false,
};

function warnOnce(message) {
  if (state.warned) return;
  state.warned = true;
  process.emitWarning(message, { type: 'HttpFastpathWarning', code: 'HTTP_FASTPATH_DISABLED' });
}

function prepare() {
  if (process.env.HTTP_FASTPATH === '0') {
    state.disabledReason = 'HTTP_FASTPATH=0';
    return false;
  }
  if (state.adapter === undefined) {
    try {
      state.adapter = makeAdapter();
    } catch (err) {
      state.adapter = null;
      state.disabledReason = err.message;
    }
    if (state.adapter === null) {
      state.disabledReason ??= `Node ${process.version} is not supported (supported: ${SUPPORTED.join(', ')})`;
      warnOnce(`http-fastpath disabled: ${state.disabledReason}; running stock Node`);
      return false;
    }
  }
  if (state.adapter === null) return false;
  if (state.native === undefined) {
    const { addon, error } = loadNative();
    state.native = addon;
    if (error) {
      state.disabledReason = `native addon failed to load: ${error.message.split('\n')[0]}`;
      warnOnce(`http-fastpath disabled: ${state.disabledReason}; running stock Node`);
    }
  }
  return state.native !== null;
}

function install() {
  if (state.installed) return true;
  if (!prepare()) return false;
  state.patches = patch.plan(state.adapter, { verify: process.env.HTTP_FASTPATH === 'verify' });
  patch.apply(state.patches);
  state.installed = true;
  state.disabledReason = null;
  return true;
}

function uninstall() {
  if (!state.installed) return false;
  patch.revert(state.patches);
  state.patches = null;
  state.installed = false;
  return true;
}

function status() {
  return {
    node: process.version,
    major: Number(process.versions.node.split('.')[0]),
    supported: SUPPORTED.includes(Number(process.versions.node.split('.')[0])),
    nativeLoaded: Boolean(state.native),
    active: state.installed,
    mode: process.env.HTTP_FASTPATH === 'verify' ? 'verify' : 'fast',
    verified: state.installed && state.patches[0].replacement.stats ? state.patches[0].replacement.stats() : undefined,
    disabledReason: state.disabledReason,
    patched: state.installed ? state.patches.map((p) => `${p.owner}.prototype.${p.name}`) : [],
    frameworks: {
      express: state.installed ? state.patches.find((p) => p.binder)?.binder.snapshot() : undefined,
    },
    stats: stats.snapshot(),
  };
}

install();

module.exports = {
  install, uninstall, status,
  resetStats: stats.reset,
  get native() { return state.native || null; },
};
