'use strict';
// µs per Koa request of what the route in http/koa.js does through Koa's
// context, without the network: app.createContext on Node's own req/res, the
// route's six ctx.set and ctx.body, then the reads Koa's respond() makes
// (ctx.writable, ctx.body, ctx.status, ctx.method) and a ctx.path. Koa's
// context delegations as `delegates` defines them (uninstall()) against the
// package's function per name (install()), batches alternating in one
// process; medians over every batch of every round.
//   node benchmark/micro/koa-context.js [--n 20000] [--rounds 3] [--turns 7] [--dry-run]

const { spawnSync } = require('child_process');
const { parseArgs, median, printTable } = require('../common/util');

const VARIANTS = ['stock', 'patched'];
const args = parseArgs(process.argv.slice(2), { n: 20000, rounds: 3, turns: 7 });
if (args['dry-run']) { args.n = 200; args.rounds = 1; args.turns = 1; }

function measure(n, turns) {
  const fastpath = require('../..');
  const http = require('http');
  const net = require('net');
  const Koa = require('koa');
  const route = require('../fixtures/json-route');
  const app = new Koa();
  const socket = new net.Socket();
  let sink = 0;
  const one = () => {
    const req = new http.IncomingMessage(socket);
    req.method = 'GET';
    req.url = route.path;
    const res = new http.ServerResponse(req);
    const ctx = app.createContext(req, res);
    if (ctx.path !== route.path) return;
    for (const [name, value] of route.headers) ctx.set(name, value);
    ctx.body = route.payload;
    if (ctx.writable && ctx.body !== null && ctx.method !== 'HEAD') sink += ctx.status;
  };
  const batch = (variant, count) => {
    if (variant === 'patched') fastpath.install();
    else fastpath.uninstall();
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i++) one();
    return Number(process.hrtime.bigint() - start) / count / 1000;
  };
  for (const v of VARIANTS) batch(v, Math.ceil(n / 5));
  const us = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  for (let t = 0; t < turns; t++) for (const v of VARIANTS) us[v].push(batch(v, n));
  return { us, sink, delegations: fastpath.status().frameworks.koa?.delegations };
}

if (args.child) {
  process.stdout.write(JSON.stringify(measure(args.n, args.turns)));
} else {
  const samples = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  for (let r = 0; r < args.rounds; r++) {
    const out = spawnSync(process.execPath, [__filename, '--child', '1', '--n', String(args.n), '--turns', String(args.turns)], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(out.stderr);
    const { us, delegations } = JSON.parse(out.stdout);
    if (!delegations || delegations.specialised === 0) throw new Error(`Koa's delegations were not taken: ${JSON.stringify(delegations)}`);
    for (const v of VARIANTS) samples[v].push(...us[v]);
  }
  const row = { node: process.version };
  for (const v of VARIANTS) row[`${v} µs`] = median(samples[v]).toFixed(2);
  row['stock → patched'] = `${(median(samples.patched) - median(samples.stock)).toFixed(2)} µs`;
  printTable([row]);
}
