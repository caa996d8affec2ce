'use strict';
// Express's response helpers recompute, on every response, strings that
// depend only on a few inputs: `res.send` parses and re-formats the
// Content-Type to set a charset it usually has already (utils.setCharset:
// content-type's parse + format), `res.set`/`res.type` resolve a type
// through mime-types' tables (Express 5), and the default ETag builds a
// fresh sha1 Hash object per body. Here those results are computed once:
//   - setCharset(type, 'utf-8'): kept by `type`;
//   - mime-types' contentType(str) (Express 5 only): kept by `str`, and each
//     kept result re-checked against the table entries it was read from
//     (mime-content-type.js, shared with Koa);
//   - the 'weak'/'strong' ETag generators: the same `W/"len-hash"` from the
//     one-shot crypto.hash() instead of createHash().update().digest();
//   - Express 4's res.set: the header name's lowercase form kept (as
//     setHeader keeps it), and the charset it appends to a Content-Type kept
//     by the value, while send's mime.charsets.lookup is the one it came from.
// Express's own files are hooked at load (lib/frameworks/package-loads.js
// finds its lib/utils.js), before lib/response.js takes setCharset by value.
// A version not listed in RECOGNISED stays stock.

const fs = require('fs');
const path = require('path');
const Module = require('module');
const crypto = require('crypto');
const { sourceDigest, textDigest } = require('./source-digest');
const patch = require('../setup/patch');
const { headerKey } = require('../response/http-rules');
const { readPackage, versionIn, versionOf, resolveOrNull } = require('./package-info');
const { makeContentType, recogniseMimeTypes, MEMO_LIMIT } = require('./mime-content-type');

// Express lines (major, minor range) whose utils/response shape was read.
const RECOGNISED = [[4, 17, 22], [5, 0, 3]];

// Express 4's res.set/res.header is one source from 4.17.0 to 4.22.2, and
// send's mime 1.6 charsets.lookup one function: replaced only when the
// digest of the function's source is this one.
const EXPRESS4_SET_SHA1 = '514a984047a3116e766f10ff4f4dcc3c0df42f9c';
const MIME1_CHARSETS_LOOKUP_SHA1 = 'c9018fb59c9c8b51f557a482b840dce4c5f6c1d6';

// Express 5's dispatch (express5-dispatch.js): app.handle as in 5.1.0-5.3.0
// (read from every published 5.x tarball: 5.0.x has another) with its
// private logerror (5.1.0-5.2.1 print err.stack, 5.3.0 err: the form
// express5-dispatch.js's LOGERRORS names), and router 2.3.0's index.js, whole
// (its handle calls private helpers the replacement re-implements).
const EXPRESS5_APP_HANDLE_SHA1 = '00e32440d23e8acdd623ad9b01ed1fba3378c35b';
const EXPRESS5_LOGERRORS = {
  '66f08b67e8cf99b95686454150362e6b195c932c': 'stack',
  '9a33f48eab9a7febdc8392146d47a77c037abf2e': 'error',
};
const ROUTER_INDEX_SHA1 = { '2.3.0': '867b9b96345839cdd31deecd0b5dd76c712cf1c5' };
const LOGERROR_SOURCE = /^function logerror\(err\) \{\n[\s\S]*?\n\}\n/m;

// setCharset(type, charset) kept by `type` for Express's one charset. The
// content-type module it calls is looked up per call in utils, so a hit also
// checks that its parse/format are still the ones the result came from.
function makeSetCharset(original, contentTypeModule) {
  const { parse, format } = contentTypeModule;
  const memo = new Map();
  return function setCharset(type, charset) {
    if (charset !== 'utf-8' || typeof type !== 'string') return original.apply(this, arguments);
    const kept = memo.get(type);
    if (kept !== undefined && contentTypeModule.parse === parse && contentTypeModule.format === format) return kept;
    const result = original.call(this, type, charset); // throws for an invalid type: not kept
    if (memo.size < MEMO_LIMIT && contentTypeModule.parse === parse && contentTypeModule.format === format) memo.set(type, result);
    return result;
  };
}

// The entity tag of Express's generators (the `etag` package's for a
// Buffer): '"' + hex length + '-' + base64 sha1 cut to 27 characters + '"'.
function makeETagGenerator(weak) {
  const prefix = weak ? 'W/"' : '"';
  return function generateETag(body, encoding) {
    const buf = Buffer.isBuffer(body) ? body : Buffer.from(body, encoding);
    return prefix + buf.length.toString(16) + '-' + crypto.hash('sha1', buf, 'base64').slice(0, 27) + '"';
  };
}

// Express 4's res.set, with two per-call costs kept: the header name's
// lowercase form (http-rules' headerKey, a Map lookup) and, for a
// Content-Type, the charset Express appends from send's mime.charsets.lookup
// (a pure function of the type), kept by the value while mime.charsets and
// its lookup are the ones the result came from. The rest is Express's own
// logic, step for step: a name that is not a string meets the same
// `field.toLowerCase()`, an array Content-Type the same TypeError.
const CHARSET_PARAM = /;\s*charset\s*=/;
function makeExpress4Set(mime) {
  const { charsets } = mime;
  const { lookup } = charsets;
  const memo = new Map();
  function withCharset(value) {
    if (CHARSET_PARAM.test(value)) return value;
    const charset = mime.charsets.lookup(value.split(';')[0]);
    return charset ? value + '; charset=' + charset.toLowerCase() : value;
  }
  return function header(field, val) {
    if (arguments.length === 2) {
      let value = Array.isArray(val) ? val.map(String) : String(val);
      if ((typeof field === 'string' ? headerKey(field) : field.toLowerCase()) === 'content-type') {
        if (Array.isArray(value)) throw new TypeError('Content-Type cannot be set to an Array');
        const unchanged = mime.charsets === charsets && charsets.lookup === lookup;
        const kept = unchanged ? memo.get(value) : undefined;
        if (kept !== undefined) {
          value = kept;
        } else {
          const result = withCharset(value);
          if (unchanged && memo.size < MEMO_LIMIT) memo.set(value, result);
          value = result;
        }
      }
      this.setHeader(field, value);
    } else {
      for (const key in field) this.set(key, field[key]);
    }
    return this;
  };
}

// --- Which copies of Express were seen, and what each has ---------------

const copies = []; // { version, dir, accelerated, patches, applied }
// Copies left stock ({ version, dir, reason }), and the helpers a recognised
// copy leaves stock ({ version, dir, helper, reason }).
const stock = [];

function leftStock(copy, helper, reason) {
  stock.push({ version: copy.version, dir: copy.dir, helper, reason });
}
const seen = new WeakSet();

// The plan for one copy of Express whose lib/utils.js exports `utils`.
function planCopy(utils, dir, version, major) {
  const requireHere = Module.createRequire(path.join(dir, 'lib', 'utils.js'));
  const owner = `express@${version} lib/utils`;
  const patches = [];
  const accelerated = [];
  const left = []; // { helper, reason }
  const contentTypeModule = typeof utils.setCharset === 'function' ? requireHere('content-type') : null;
  if (typeof contentTypeModule?.parse === 'function' && typeof contentTypeModule.format === 'function') {
    patches.push({ target: utils, owner, name: 'setCharset', make: (orig) => makeSetCharset(orig, contentTypeModule) });
    accelerated.push('setCharset');
  } else {
    left.push({ helper: 'setCharset', reason: 'unknownSource' });
  }
  if (typeof utils.etag !== 'function' || typeof utils.wetag !== 'function') {
    left.push({ helper: 'etag', reason: 'unknownSource' });
  } else if (typeof crypto.hash !== 'function') {
    left.push({ helper: 'etag', reason: 'noCryptoHash' }); // Node 20.0-20.11
  } else {
    patches.push({ target: utils, owner, name: 'etag', make: () => makeETagGenerator(false) });
    patches.push({ target: utils, owner, name: 'wetag', make: () => makeETagGenerator(true) });
    accelerated.push('etag');
  }
  const known = major === 5 ? recogniseMimeTypes(requireHere) : null;
  if (known !== null) {
    const { mime, db, version: mimeVersion } = known;
    patches.push({ target: mime, owner: `mime-types@${mimeVersion}`, name: 'contentType', make: (orig) => makeContentType(mime, db, orig) });
    accelerated.push('contentType');
  } else if (major === 5) {
    left.push({ helper: 'contentType', reason: 'unknownSource' });
  }
  return { patches, accelerated, left };
}

// The copy whose lib/application.js module is `application`, or whose
// lib/express.js module is `express` (one directory can be loaded twice: a
// test runner's module registry, a cleared require cache).
const copyOfApplication = (application) => copies.find((c) => c.application === application);
const copyOfExpress = (express) => copies.find((c) => c.express !== null && c.express === express);

// Called, while the package is active, with the exports of a module loaded
// as './utils' from Express's lib/application.js (`dir` is the package's
// directory, `application` that module).
function adopt(utils, dir, application) {
  if (utils === null || typeof utils !== 'object' || seen.has(utils)) return;
  seen.add(utils);
  const pkg = readPackage(dir);
  const version = versionOf(pkg);
  if (pkg === null || pkg.name !== 'express' || !versionIn(version, RECOGNISED)) {
    stock.push({ version, dir, reason: pkg?.name === 'express' ? 'unrecognised version' : 'not express' });
    return;
  }
  const major = +version.split('.')[0];
  const { patches, accelerated, left } = planCopy(utils, dir, version, major);
  const copy = { version, dir, major, accelerated, patches, applied: false, application, express: null };
  copies.push(copy);
  for (const { helper, reason } of left) leftStock(copy, helper, reason);
  applyCopy(copy);
}

// Called with the exports of Express's lib/response.js as its lib/express.js
// loads it (the prototype every app's response inherits from).
function adoptResponse(response, dir, express) {
  const copy = copyOfExpress(express);
  if (copy === undefined || copy.major !== 4 || copy.accelerated.includes('set') || response === null || typeof response !== 'object') return;
  const set = response.set;
  if (typeof set !== 'function' || response.header !== set || sourceDigest(set) !== EXPRESS4_SET_SHA1) return leftStock(copy, 'set', 'unknownSource');
  const mime = Module.createRequire(path.join(dir, 'lib', 'response.js'))('send').mime;
  const lookup = mime?.charsets?.lookup;
  if (typeof lookup !== 'function' || sourceDigest(lookup) !== MIME1_CHARSETS_LOOKUP_SHA1) return leftStock(copy, 'set', 'unknownSource');
  const header = makeExpress4Set(mime);
  const owner = `express@${copy.version} lib/response`;
  const more = [{ target: response, owner, name: 'set', make: () => header }, { target: response, owner, name: 'header', make: () => header }];
  copy.patches.push(...more);
  copy.accelerated.push('set');
  if (copy.applied) patch.apply(more);
}

// Called with Express's lib/application.js exports (the app prototype) as its
// lib/express.js loads it: Express 5.1+'s app.handle, when its source and
// logerror's are the ones read.
function adoptApplication(proto, dir, express) {
  const copy = copies.find((c) => c.express === null && c.application?.exports === proto);
  if (copy === undefined) return;
  copy.express = express; // lib/response.js comes next, from the same lib/express.js
  if (copy.major !== 5 || proto === null || typeof proto !== 'object') return;
  if (typeof proto.handle !== 'function' || sourceDigest(proto.handle) !== EXPRESS5_APP_HANDLE_SHA1) return leftStock(copy, 'appHandle', 'unknownSource');
  const file = path.join(dir, 'lib', 'application.js');
  const logerror = LOGERROR_SOURCE.exec(readText(file));
  const logerrorForm = logerror === null ? undefined : EXPRESS5_LOGERRORS[textDigest(logerror[0])];
  if (logerrorForm === undefined) return leftStock(copy, 'appHandle', 'unknownSource');
  const finalhandler = Module.createRequire(file)('finalhandler');
  if (typeof finalhandler !== 'function') return leftStock(copy, 'appHandle', 'unknownSource');
  // Made once per copy, so install()/uninstall() cycles put back the same function.
  let handle = null;
  const make = () => {
    if (handle === null) {
      handle = dispatch().makeAppHandle(finalhandler, dispatch().LOGERRORS[logerrorForm]);
      dispatchHandles.add(handle);
    }
    return handle;
  };
  const more = [{ target: proto, owner: `express@${copy.version} lib/application`, name: 'handle', make }];
  copy.patches.push(...more);
  copy.accelerated.push('appHandle');
  if (copy.applied) patch.apply(more);
}

// Called with the `router` package as Express 5's lib/application.js loads
// it: its Router.prototype.handle, for a router whose index.js is one read.
const routersSeen = new WeakMap(); // Router.prototype -> whether its handle is replaced
function adoptRouter(Router, dir, application) {
  const copy = copyOfApplication(application);
  // router 2's prototype is itself a function (a router is a function).
  if (copy === undefined || copy.major !== 5 || typeof Router !== 'function' || typeof Router.prototype !== 'function') return;
  if (routersSeen.has(Router.prototype)) { // one router shared by two copies of Express: replaced once
    if (routersSeen.get(Router.prototype)) copy.accelerated.push('router');
    else leftStock(copy, 'router', 'unknownSource');
    return;
  }
  routersSeen.set(Router.prototype, false);
  const file = resolveOrNull(Module.createRequire(path.join(dir, 'lib', 'application.js')), 'router');
  if (file === null) return leftStock(copy, 'router', 'unknownSource');
  const pkg = readPackage(path.dirname(file));
  const digest = pkg === null || pkg.name !== 'router' ? undefined : ROUTER_INDEX_SHA1[pkg.version];
  if (digest === undefined || textDigest(readText(file)) !== digest || typeof Router.prototype.handle !== 'function') return leftStock(copy, 'router', 'unknownSource');
  const requireRouter = Module.createRequire(file);
  const tracing = requireRouter('./lib/tracing');
  const deps = {
    parseUrl: requireRouter('parseurl'),
    recordError: tracing.recordError,
    requestChannel: tracing.requestChannel,
    shouldTrace: tracing.shouldTrace,
    traceParam: tracing.traceParam,
    callParam: requireRouter('./lib/param'),
    matchedRoute: requireRouter('./lib/symbols').matchedRoute,
    debug: requireRouter('debug')('router'),
  };
  // Made once per router, so install()/uninstall() cycles put back the same function.
  let handle = null;
  const more = [{ target: Router.prototype, owner: `router@${pkg.version}`, name: 'handle', make: (orig) => (handle ??= dispatch().makeRouterHandle(orig, deps)) }];
  routersSeen.set(Router.prototype, true);
  copy.patches.push(...more);
  copy.accelerated.push('router');
  if (copy.applied) patch.apply(more);
}

// The hooks run inside the app's require(): whatever fails in reading a copy
// must not make that require() throw. That part stays stock, and status()
// lists the copy's directory with what was not read and why.
function guarded(part, adoptOne) {
  return function (exports, dir, parent) {
    try {
      adoptOne(exports, dir, parent);
    } catch (err) {
      stock.push({ version: versionOf(readPackage(dir)), dir, reason: `${part} not read: ${err?.message}` });
    }
  };
}

// Whether an app's handle swaps req/res to the app's prototypes first thing,
// before anything it calls can return or throw: Express 5.1-5.3's app.handle
// (by its source's digest) and the package's stand-in for it. Express 4's
// swaps only in its router's init middleware.
const dispatchHandles = new WeakSet();
function swapsPrototypesFirst(handle) {
  return typeof handle === 'function' && (dispatchHandles.has(handle) || sourceDigest(handle) === EXPRESS5_APP_HANDLE_SHA1);
}

let dispatchModule = null;
const dispatch = () => (dispatchModule ??= require('./express5-dispatch'));

function readText(file) {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    return '';
  }
}

// Express in `dir` was loaded before the package armed its hook.
function loadedBefore(dir) {
  const pkg = readPackage(dir);
  if (pkg === null || pkg.name !== 'express' || copies.some((c) => c.dir === dir) || stock.some((s) => s.dir === dir && s.helper === undefined)) return;
  stock.push({ version: versionOf(pkg), dir, reason: 'loaded before http-fastpath' });
}

function applyCopy(copy) {
  if (copy.applied) return;
  patch.apply(copy.patches);
  copy.applied = true;
}

function applyAll() {
  for (const copy of copies) applyCopy(copy);
}

function revertAll() {
  for (const copy of copies) {
    if (!copy.applied) continue;
    patch.revert(copy.patches);
    copy.applied = false;
  }
}

function snapshot() {
  return {
    copies: copies.map(({ version, dir, accelerated, applied }) => ({ version, dir, accelerated: applied ? [...accelerated] : [] })),
    stock: stock.map((s) => ({ ...s })),
  };
}

module.exports = {
  adopt: guarded('lib/utils', adopt),
  adoptResponse: guarded('lib/response', adoptResponse),
  adoptApplication: guarded('lib/application', adoptApplication),
  adoptRouter: guarded('router', adoptRouter),
  loadedBefore,
  swapsPrototypesFirst,
  applyAll,
  revertAll,
  snapshot,
  makeSetCharset,
  makeETagGenerator,
  makeContentType,
  MEMO_LIMIT,
};
