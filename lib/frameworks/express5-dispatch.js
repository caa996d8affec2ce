'use strict';
// Express 5's per-request dispatch with the same steps and fewer objects.
// Stock, every request builds: in app.handle, finalhandler's options object,
// a bound logerror and finalhandler's closure; in router 2.x's handle, three
// closures (next, trimPrefix, the restoring callback), two arrays for the
// values to restore, a `paramcalled` object, and one more closure per layer
// reached. Almost all of them are only used when routing falls through to the
// end, an error is passed, or a param callback exists.
//
// Here each request gets one Dispatch object and its `next` function; the
// final handler, the restoring callback, `paramcalled` and the param-callback
// closure are made when (if) they are needed, from the same values read at
// the same moments. Every public method the stock code calls (layer.match,
// layer.handleRequest/handleError, route._handlesMethod, app.get/enabled,
// router.handle of a nested router) is still called through the object, so an
// app or a tool that replaces one sees it called as before. OPTIONS requests,
// whose automatic Allow response stock builds while routing, go through the
// stock handle unchanged.
//
// Used only for sources read line by line: app.handle of Express 5.1.0-5.3.0 and
// router 2.3.0's index.js (digests in express-helpers.js).

// finalhandler, made when routing ends without a response (or an error
// reaches it). Stock makes it first, but making it reads nothing that can have
// changed since, except process.env.NODE_ENV when the app's env is empty: then
// it is made at once, as stock does.
// Express's private logerror, as each source has it (express-helpers.js
// picks one by the digest of the source text): 5.0-5.2 print the stack,
// 5.3.0 the error itself.
const LOGERRORS = {
  stack: function logerror(err) {
    if (this.get('env') !== 'test') console.error(err.stack || err.toString());
  },
  error: function logerror(err) {
    if (this.get('env') !== 'test') console.error(err);
  },
};

function makeAppHandle(finalhandler, logerror) {
  function finalHandlerWhenNeeded(req, res, env, app) {
    return function (err) {
      return finalhandler(req, res, { env, onerror: logerror.bind(app) }).apply(this, arguments);
    };
  }
  return function handle(req, res, callback) {
    let done = callback;
    if (!done) {
      const env = this.get('env');
      done = env ? finalHandlerWhenNeeded(req, res, env, this) : finalhandler(req, res, { env, onerror: logerror.bind(this) });
    }
    if (this.enabled('x-powered-by')) {
      res.setHeader('X-Powered-By', 'Express');
    }
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, this.request);
    Object.setPrototypeOf(res, this.response);
    if (!res.locals) {
      res.locals = Object.create(null);
    }
    this.router.handle(req, res, done);
  };
}

// A URL that is not origin-form ('http://host/path'): the part before the path.
function getProtohost(url) {
  if (typeof url !== 'string' || url.length === 0 || url[0] === '/') return undefined;
  const searchIndex = url.indexOf('?');
  const pathLength = searchIndex !== -1 ? searchIndex : url.length;
  const fqdnIndex = url.substring(0, pathLength).indexOf('://');
  return fqdnIndex !== -1 ? url.substring(0, url.indexOf('/', 3 + fqdnIndex)) : undefined;
}

// A mergeParams router's params: the parent's, then the layer's; numeric
// keys of the layer's shifted past the parent's.
function mergeParams(params, parent) {
  if (typeof parent !== 'object' || !parent) return params;
  const merged = Object.assign({}, parent);
  if (!(0 in params) || !(0 in parent)) return Object.assign(merged, params);
  let i = 0;
  let o = 0;
  while (i in params) i++;
  while (o in parent) o++;
  for (i--; i >= 0; i--) {
    params[i + o] = params[i];
    if (i < o) delete params[i];
  }
  return Object.assign(merged, params);
}

// Whether any of a layer's keys has param callbacks: when none has, stock's
// processParams reads each key and calls back at once, changing nothing.
function hasParamCallbacks(params, keys) {
  for (let i = 0; i < keys.length; i++) if (params[keys[i]]) return true;
  return false;
}

function makeRouterHandle(original, deps) {
  const { parseUrl, recordError, requestChannel, shouldTrace, traceParam, callParam, matchedRoute, debug } = deps;

  function getPathname(req) {
    try {
      return parseUrl(req).pathname;
    } catch {
      return undefined;
    }
  }

  // One router.handle call: the state stock keeps in its closures.
  class Dispatch {
    constructor(router, req, res, callback) {
      this.router = router;
      this.req = req;
      this.res = res;
      this.callback = callback;
      this.stack = router.stack;
      this.idx = 0;
      this.protohost = getProtohost(req.url) || '';
      this.removed = '';
      this.slashAdded = false;
      this.sync = 0;
      this.paramcalled = undefined;
      this.parentParams = req.params; // also what the restoring callback puts back
      this.parentUrl = req.baseUrl || '';
      // What else the restoring callback puts back (read now, as stock reads them).
      this.savedBaseUrl = req.baseUrl;
      this.savedNext = req.next;
      this.savedRoute = req[matchedRoute];
      this.done = undefined;
      const self = this;
      this.next = function next(err) {
        return self.step(err);
      };
    }

    // The callback with req's routing values restored first, made once.
    getDone() {
      if (this.done === undefined) {
        const { req, callback, savedBaseUrl, savedNext, parentParams, savedRoute } = this;
        this.done = function () {
          req.baseUrl = savedBaseUrl;
          req.next = savedNext;
          req.params = parentParams;
          req[matchedRoute] = savedRoute;
          return callback.apply(this, arguments);
        };
      }
      return this.done;
    }

    step(err) {
      const req = this.req;
      if (err) recordError(req, err);
      let layerError = err === 'route' ? null : err;

      // remove the slash added for a mount path, unless the layer rewrote the path
      if (this.slashAdded) {
        const pathIsRoot = req.url === '/' || req.url.startsWith('/?');
        if (pathIsRoot || (this.removed.endsWith('/') && req.url[0] === '/')) {
          req.url = req.url.slice(1);
        }
        this.slashAdded = false;
      }
      // put back the part of req.url a mounted layer had trimmed
      if (this.removed.length !== 0) {
        req.baseUrl = this.parentUrl;
        req.url = this.protohost + this.removed + req.url.slice(this.protohost.length);
        this.removed = '';
      }
      if (layerError === 'router') {
        setImmediate(this.getDone(), null);
        return;
      }
      const stack = this.stack;
      if (this.idx >= stack.length) {
        setImmediate(this.getDone(), layerError);
        return;
      }
      if (++this.sync > 100) {
        return setImmediate(this.next, err);
      }
      const path = getPathname(req);
      if (path == null) {
        return this.getDone()(layerError);
      }

      let layer;
      let match;
      let route;
      while (!match && this.idx < stack.length) {
        layer = stack[this.idx++];
        route = layer.route;
        try {
          match = layer.match(path);
        } catch (matchError) {
          recordError(req, matchError);
          layerError = layerError || matchError;
          match = false;
        }
        if (!match) continue;
        if (!route) continue;
        if (layerError) {
          match = false;
          continue;
        }
        const method = req.method;
        const hasMethod = route._handlesMethod(method);
        if (!hasMethod && method !== 'HEAD') match = false;
      }
      if (!match) {
        return this.getDone()(layerError);
      }
      if (route) req.route = route;
      req[matchedRoute] = match.pattern;
      const router = this.router;
      req.params = router.mergeParams ? mergeParams(match.params, this.parentParams) : match.params;

      const params = router.params;
      const keys = match.keys;
      if (keys && keys.length !== 0 && hasParamCallbacks(params, keys)) {
        this.paramcalled ??= {};
        this.processParams(params, layer, keys, (paramError) => this.afterParams(paramError, layer, layerError, route, match.path, path));
        return;
      }
      this.afterParams(undefined, layer, layerError, route, match.path, path);
    }

    afterParams(paramError, layer, layerError, route, layerPath, path) {
      if (paramError) {
        this.next(layerError || paramError);
      } else if (route) {
        layer.handleRequest(this.req, this.res, this.next);
      } else {
        this.trimPrefix(layer, layerError, layerPath, path);
      }
      this.sync = 0;
    }

    trimPrefix(layer, layerError, layerPath, path) {
      const req = this.req;
      if (layerPath.length !== 0) {
        // the layer's path must be a prefix of the path, ending at a '/'
        if (layerPath !== path.substring(0, layerPath.length)) {
          this.next(layerError);
          return;
        }
        const c = path[layerPath.length];
        if (c && c !== '/') {
          this.next(layerError);
          return;
        }
        if (debug.enabled) debug('trim prefix (%s) from url %s', layerPath, req.url);
        const protohost = this.protohost;
        this.removed = layerPath;
        req.url = protohost + req.url.slice(protohost.length + layerPath.length);
        if (!protohost && req.url[0] !== '/') {
          req.url = '/' + req.url;
          this.slashAdded = true;
        }
        req.baseUrl = this.parentUrl + (layerPath[layerPath.length - 1] === '/' ? layerPath.substring(0, layerPath.length - 1) : layerPath);
      }
      if (debug.enabled) debug('%s %s : %s', layer.name, layerPath, req.originalUrl);
      if (layerError) {
        layer.handleError(layerError, req, this.res, this.next);
      } else {
        layer.handleRequest(req, this.res, this.next);
      }
    }

    // Param callbacks of the layer's keys, in order, each at most once per
    // value across the layers of this dispatch (stock's processParams).
    processParams(params, layer, keys, done) {
      const { req, res } = this;
      const called = this.paramcalled;
      let i = 0;
      let paramIndex = 0;
      let key;
      let paramVal;
      let paramCallbacks;
      let paramCalled;
      function param(err) {
        if (err) return done(err);
        if (i >= keys.length) return done();
        paramIndex = 0;
        key = keys[i++];
        paramVal = req.params[key];
        paramCallbacks = params[key];
        paramCalled = called[key];
        if (paramVal === undefined || !paramCallbacks) return param();
        // called before with the same value, or it failed
        if (paramCalled && (paramCalled.match === paramVal || (paramCalled.error && paramCalled.error !== 'route'))) {
          req.params[key] = paramCalled.value;
          return param(paramCalled.error);
        }
        called[key] = paramCalled = { error: null, match: paramVal, value: paramVal };
        paramCallback();
      }
      function paramCallback(err) {
        const fn = paramCallbacks[paramIndex++];
        paramCalled.value = req.params[key];
        if (err) {
          paramCalled.error = err;
          param(err);
          return;
        }
        if (!fn) return param();
        if (shouldTrace(requestChannel)) {
          traceParam(fn, { req, res, layer, handler: fn, route: req[matchedRoute], param: key }, paramCallback, paramVal, key);
          return;
        }
        callParam(fn, req, res, paramCallback, paramVal, key);
      }
      param();
    }
  }

  return function handle(req, res, callback) {
    if (req.method === 'OPTIONS') return original.call(this, req, res, callback);
    if (!callback) {
      throw new TypeError('argument callback is required');
    }
    if (debug.enabled) debug('dispatching %s %s', req.method, req.url);
    const dispatch = new Dispatch(this, req, res, callback);
    req.next = dispatch.next;
    req.baseUrl = dispatch.parentUrl;
    req.originalUrl = req.originalUrl || req.url;
    dispatch.next();
  };
}

module.exports = { LOGERRORS, makeAppHandle, makeRouterHandle };
