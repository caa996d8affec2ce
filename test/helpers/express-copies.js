'use strict';
// Two copies each of Express 4, Express 5.2 and Express 5.3 in one process, for differential
// tests: the patched copies, loaded with the package armed, and stock copies,
// loaded afresh with all their dependencies while the package is uninstalled
// (so their files, router and mime tables are npm's own). runOnce() serves a
// scenario's routes from one copy and returns the bytes on the wire and what
// the handlers logged.

const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');
const fastpath = require('../..');
const { rawRequest } = require('./raw-request');
const { normaliseDates, describeError } = require('./differential');
const { loadFresh } = require('./fresh-modules');

// The copies: Express 4 and the pinned Express 5 (package.json), and the
// Express 5 npm resolves today (express53: 5.3.0, whose logerror differs).
const PACKAGES = { express4: 'express4', express5: 'express', express53: 'express53' };

// The modules a copy's handlers may change at run time, from its own tree.
function partsOf(express) {
  const dir = path.dirname(require.resolve(`${PACKAGES[express]}/package.json`));
  const here = Module.createRequire(path.join(dir, 'lib', 'utils.js'));
  const mimeTypes = here('mime-types');
  return {
    express: here(dir),
    mimeTypes,
    mimeDb: Module.createRequire(here.resolve('mime-types'))('mime-db'),
    sendMime: here('send').mime,
    utils: here('./utils'),
    contentType: here('content-type'),
    application: here('./application'),
    Router: express === 'express4' ? undefined : Module.createRequire(path.join(dir, 'lib', 'application.js'))('router'),
  };
}

// The patched copies: loaded now, with the package armed.
// express53 gets modules of its own: the scenarios change mime-types' tables
// and functions, which it would otherwise share with express5.
const PATCHED = { express4: partsOf('express4'), express5: partsOf('express5'), express53: loadFresh(() => partsOf('express53')) };

// A stock copy: loaded afresh, with its dependencies, while the package is uninstalled.
function loadStock(name) {
  fastpath.uninstall();
  try {
    return loadFresh(() => partsOf(name));
  } finally {
    fastpath.install();
  }
}
const STOCK = { express4: loadStock('express4'), express5: loadStock('express5'), express53: loadStock('express53') };

// Runs `scenario` on one copy; `log` collects what the handlers saw. Unless
// the scenario says `errorHandler: false`, an error handler that logs the
// error and answers 500 ends the app.
async function runOnce(scenario, parts, patched) {
  if (patched) fastpath.install(); else fastpath.uninstall();
  const log = [];
  const app = parts.express();
  const attempt = (label, fn) => {
    try {
      log.push([label, fn()]);
    } catch (err) {
      log.push([label, 'threw', describeError(err)]);
    }
  };
  scenario.routes(app, { ...parts, log, attempt });
  if (scenario.errorHandler !== false) {
    app.use((err, req, res, next) => { // eslint-disable-line no-unused-vars
      log.push(['error handler', describeError(err)]);
      res.status(500).end('error');
    });
  }
  const server = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  const text = (await rawRequest(server.address().port, scenario.requests.join(''))).toString('latin1');
  server.close();
  server.closeAllConnections();
  return { bytes: normaliseDates(text), log };
}

const get = (p, extra = '') => `GET ${p} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
const head = (p) => `HEAD ${p} HTTP/1.1\r\nHost: x\r\n\r\n`;

// A directory holding a fake `express` package of `version` whose lib/ has
// `libFiles`; `check(pkg)` runs with it, then it is removed.
function withFakeExpress(version, libFiles, check) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'http-fastpath-express-'));
  try {
    const pkg = path.join(dir, 'express');
    fs.mkdirSync(path.join(pkg, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'express', version }));
    for (const [name, text] of Object.entries(libFiles)) fs.writeFileSync(path.join(pkg, 'lib', name), text);
    check(pkg);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { PATCHED, STOCK, runOnce, get, head, partsOf, withFakeExpress };
