'use strict';
// Preloading costs nothing until the app loads Node's HTTP stack. Patching
// waits for the first of:
//   - a CommonJS require of http, https, http2 or an _http_* module (any
//     spelling: 'http', 'node:http'), through Module._load, which every
//     require() goes through, also those of CommonJS packages imported from ESM;
//   - the first HTTP/1 request of any server ('http.server.request.start'):
//     the net for ESM code that imports node:http itself, whose builtins do
//     not pass through Module._load. Patches live on prototypes, so that
//     request's response already takes them.
// Both hooks are removed when the first fires, so afterwards nothing of this
// module runs again.

const Module = require('module');
const dc = require('diagnostics_channel');

const HTTP_MODULES = new Set(['http', 'https', 'http2', '_http_server', '_http_outgoing', '_http_incoming',
  '_http_client', '_http_common', '_http_agent']);
const LOADED_MARKS = ['NativeModule http', 'NativeModule https', 'NativeModule http2', 'NativeModule _http_server'];

function isHttpModule(request) {
  return typeof request === 'string' &&
    HTTP_MODULES.has(request.startsWith('node:') ? request.slice(5) : request);
}

function httpLoaded() {
  const list = process.moduleLoadList;
  return LOADED_MARKS.some((m) => list.includes(m));
}

// Calls onHttp(how, server) once, when the app first needs HTTP (at once if
// it already has it). Returns a function that disarms the hooks.
function whenHttpLoads(onHttp) {
  if (httpLoaded()) {
    onHttp('already loaded', undefined);
    return () => {};
  }
  const originalLoad = Module._load;
  let fired = false;

  function _load(request) {
    const exports = Reflect.apply(originalLoad, this, arguments);
    if (!fired && isHttpModule(request)) fire('require', undefined);
    return exports;
  }
  function onRequestStart(message) {
    if (!fired) fire('first request', message.server);
  }
  function disarm() {
    fired = true;
    // Someone may have wrapped Module._load over ours: theirs stays, ours passes through.
    if (Module._load === _load) Module._load = originalLoad;
    // Not synchronously: this can run inside the channel's own publish loop.
    process.nextTick(() => dc.unsubscribe('http.server.request.start', onRequestStart));
  }
  function fire(how, server) {
    disarm();
    onHttp(how, server);
  }

  Module._load = _load;
  dc.subscribe('http.server.request.start', onRequestStart);
  return disarm;
}

module.exports = { whenHttpLoads, isHttpModule, httpLoaded };
