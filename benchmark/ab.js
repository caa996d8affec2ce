'use strict';
// In-process A/B: one server under a steady wrk load (on the other core),
// the package installed and uninstalled every --window ms, server CPU time
// per request summed for each state. Both states share the process, the
// warm JIT and the machine's momentary load, so small differences that the
// run-to-run noise of compare.js hides show up here.
//   taskset -c 0 node benchmark/ab.js --app koa [--seconds 20] [--window 300]
// Apps: hello, fastify, koa, hono, express5, express4. Express's binding is
// made at listen() and its helpers when Express loads, so the Express apps
// hold two copies of Express: a stock one (loaded, with its dependencies,
// while the package was uninstalled) whose app answers in the stock windows,
// and the patched one, whose app answers in the patched windows on a server
// bound again at each switch. Their route is benchmark/http/express-routes.js'
// json route: res.set() of three headers and res.json() of a small object.

const { spawn } = require('child_process');
const http = require('http');
const { parseArgs, printTable } = require('./common/util');
const { hasCommand } = require('./common/bench');
const route = require('./fixtures/json-route');
const fastpath = require('..');
const { loadFresh } = require('../test/helpers/fresh-modules');

const args = parseArgs(process.argv.slice(2), { seconds: 20, window: 300 });
let requests = 0;

const apps = {
  hello: () => http.createServer((req, res) => { requests++; res.setHeader('Content-Type', 'text/plain'); res.end('hello world'); }),
  fastify() {
    const app = require('fastify')({ logger: false });
    app.get(route.path, (req, reply) => { requests++; for (const [k, v] of route.headers) reply.header(k, v); reply.send(route.payload); });
    return app.ready().then(() => app.server);
  },
  koa() {
    const app = new (require('koa'))();
    app.use((ctx) => { requests++; for (const [k, v] of route.headers) ctx.set(k, v); ctx.body = route.payload; });
    return http.createServer(app.callback());
  },
  hono() {
    const { Hono } = require('hono');
    const { createAdaptorServer } = require('@hono/node-server');
    const app = new Hono();
    app.get(route.path, (c) => { requests++; for (const [k, v] of route.headers) c.header(k, v); return c.json(route.payload); });
    return createAdaptorServer({ fetch: app.fetch });
  },
};

const THREE = { 'Cache-Control': 'no-store', 'X-Request-Id': 'abc123', Vary: 'Accept-Encoding' };
const SMALL = { id: 42, name: 'widget', tags: ['a', 'b', 'c'], price: 9.99, stock: true };

function expressPair(name) {
  fastpath.uninstall();
  const stockExpress = loadFresh(() => require(name));
  fastpath.install();
  const build = (express) => {
    const app = express();
    app.get(route.path, (req, res) => { requests++; res.set(THREE); res.json(SMALL); });
    return app;
  };
  const apps = { stock: build(stockExpress), patched: build(require(name)) };
  const server = http.createServer(apps.patched);
  // The package binds a server to its Express app in listen(), before Node's
  // own listen() finds the server listening already and throws.
  const bind = () => { try { server.listen(); } catch { /* ERR_SERVER_ALREADY_LISTEN */ } };
  server.switchTo = (state) => {
    server.removeAllListeners('request');
    server.on('request', apps[state]);
    if (state === 'patched') bind();
  };
  return server;
}
apps.express5 = () => expressPair('express');
apps.express4 = () => expressPair('express4');

async function main() {
  if (!apps[args.app]) throw new Error(`--app: one of ${Object.keys(apps).join(', ')}`);
  if (!hasCommand('wrk')) throw new Error('needs wrk');
  const server = await apps[args.app]();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}${route.path}`;
  const wrkArgs = ['-t1', '-c50', `-d${args.seconds + 3}s`, url];
  const wrk = hasCommand('taskset') ? spawn('taskset', ['-c', '1', 'wrk', ...wrkArgs], { stdio: 'ignore' }) : spawn('wrk', wrkArgs, { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 2000)); // warm-up
  const totals = { stock: { cpu: 0, n: 0 }, patched: { cpu: 0, n: 0 } };
  let state = 'patched';
  fastpath.install();
  const end = Date.now() + args.seconds * 1000;
  let skip = 2;
  while (Date.now() < end) {
    const cpu0 = process.cpuUsage();
    const n0 = requests;
    await new Promise((resolve) => setTimeout(resolve, args.window));
    const cpu = process.cpuUsage(cpu0);
    if (skip-- <= 0) {
      totals[state].cpu += cpu.user + cpu.system;
      totals[state].n += requests - n0;
    }
    state = state === 'patched' ? 'stock' : 'patched';
    if (state === 'patched') fastpath.install(); else fastpath.uninstall();
    server.switchTo?.(state);
  }
  wrk.kill();
  server.close();
  const us = (t) => t.cpu / t.n;
  printTable([{
    node: process.version, app: args.app,
    'stock µs/req': us(totals.stock).toFixed(2), 'patched µs/req': us(totals.patched).toFixed(2),
    'CPU change': `${((us(totals.patched) / us(totals.stock) - 1) * 100).toFixed(1)} %`,
    requests: totals.stock.n + totals.patched.n,
  }]);
  process.exit(0);
}

main();
