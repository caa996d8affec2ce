'use strict';
// A compressed JSON response from an Express stack as deployed: helmet, cors,
// compression, morgan (to a file) and express.json() in front of a route
// answering `size` of JSON; the client asks for `enc` (br: compression picks
// brotli from 'gzip, deflate, br'). framework=fastify: @fastify/compress,
// registered (awaited) before the route; framework=koa: koa-compress;
// framework=floor: the floor, a bare http server answering each request with
// zlib.*Sync of the same JSON at the middlewares' settings (brotli quality 4,
// gzip level 6). Besides req/s and CPU per request, the
// result has the loop thread's CPU, minor faults and context switches per
// request, the resident memory during the load and the event loop's delay
// p99 (common/proc-probe.js); the 1 MiB body is the large job that must stay on
// the threadpool. cluster=N (N > 0): N workers of node:cluster serve the app
// on one port (one per CPU is what deployments run), the load generator on
// the same machine, unpinned, after a warm-up as long as the run; the figures
// are then the workers' together (common/cluster-probe.js), with where each
// worker's codec jobs ran at the end.
const common = require('../common/bench');
const probe = require('../common/proc-probe');
const clusterProbe = require('../common/cluster-probe');
const fs = require('fs');
const os = require('os');
const path = require('path');

const bench = common.createBenchmark(main, {
  framework: ['express', 'fastify', 'koa', 'floor'], size: [2048, 20480, 1 << 20], enc: ['br', 'gzip'], c: [50], cluster: [0],
});

function jsonOf(bytes) {
  const items = [];
  let text = '[]';
  for (let i = 0; text.length < bytes; i++) {
    items.push({ id: i, name: `item ${i}`, tags: ['alpha', 'beta'], price: (i * 37) % 1000 / 10, active: i % 3 !== 0 });
    text = JSON.stringify(items);
  }
  return items;
}

function load(port, enc, c, probeStart, done) {
  const headers = { 'Accept-Encoding': enc === 'br' ? 'gzip, deflate, br' : 'gzip' };
  bench.http({ port, path: '/items', connections: c, headers, probe: probeStart }, done);
}

// Each app listens on `port` (0: any) and resolves with its server and a close().

async function fastify({ size }, port) {
  const app = require('fastify')();
  await app.register(require('@fastify/compress'));
  const body = jsonOf(size);
  app.get('/items', () => body);
  await app.listen({ port, host: '127.0.0.1' });
  return { server: app.server, close: () => app.close() };
}

const listening = (server, port) => new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ server, close: () => server.close() })));

function koa({ size }, port) {
  const Koa = require('koa');
  const app = new Koa();
  app.silent = true; // wrk's connections close mid-response when it stops
  app.use(require('koa-compress')());
  const body = jsonOf(size);
  app.use((ctx) => { if (ctx.path === '/items') ctx.body = body; });
  return listening(require('http').createServer(app.callback()), port);
}

function floor({ size, enc }, port) {
  const zlib = require('zlib');
  const body = jsonOf(size);
  const compress = enc === 'br' ?
    (text) => zlib.brotliCompressSync(text, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }) :
    (text) => zlib.gzipSync(text);
  const server = require('http').createServer((req, res) => {
    const out = compress(JSON.stringify(body));
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Encoding': enc, 'Content-Length': out.length });
    res.end(out);
  });
  return listening(server, port);
}

const APPS = { express, fastify, koa, floor };

async function main(conf) {
  if (conf.cluster > 0) return clustered(conf);
  const { server, close } = await APPS[conf.framework](conf, 0);
  const start = () => {
    const stop = probe.start();
    return (requests) => ({ ...stop(requests), zlibMode: clusterProbe.zlibMode() });
  };
  load(server.address().port, conf.enc, conf.c, start, close);
}

// The primary forks the workers (same script, same config, same -r) and
// drives them; each worker serves the app on the primary's port.
function warmUp(port, { enc, c, duration = bench.duration }) {
  if (!common.hasCommand('wrk')) return new Promise((resolve) => setTimeout(resolve, duration * 1000));
  const accept = enc === 'br' ? 'gzip, deflate, br' : 'gzip';
  const wrk = require('child_process').spawn('wrk', ['-t1', `-c${c}`, `-d${duration}s`, '-H', `Accept-Encoding: ${accept}`, `http://127.0.0.1:${port}/items`], { stdio: 'ignore' });
  return new Promise((resolve) => wrk.on('close', resolve));
}

async function clustered(conf) {
  const cluster = require('cluster');
  if (cluster.isWorker) {
    const { close } = await APPS[conf.framework](conf, Number(process.env.BENCH_PORT));
    // Where this worker's codec jobs run and its event loop's delay p99 since
    // the measured run began, sent to the primary twice a second.
    const delay = require('perf_hooks').monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    setInterval(() => process.send({ zlib: clusterProbe.zlibMode(), delayP99Ms: delay.percentile(99) / 1e6 }), 500).unref();
    process.on('message', (m) => {
      if (m === 'measure') delay.reset();
      if (m !== 'stop') return;
      close();
      setTimeout(() => process.exit(0), 100).unref();
    });
    process.send('listening');
    return;
  }
  const port = await clusterProbe.freePort();
  const workers = Array.from({ length: conf.cluster }, () => cluster.fork({ BENCH_PORT: String(port) }));
  await Promise.all(workers.map((w) => new Promise((resolve) => w.on('message', (m) => { if (m === 'listening') resolve(); }))));
  const modes = new Map();
  const delays = new Map();
  for (const w of workers) {
    w.on('message', (m) => {
      if (m && m.zlib === undefined) return;
      modes.set(w.id, m.zlib);
      delays.set(w.id, m.delayP99Ms);
    });
  }
  const start = () => {
    for (const w of workers) w.send('measure');
    const stop = clusterProbe.start(workers.map((w) => w.process.pid));
    return (requests) => ({ ...stop(requests), zlibModes: [...modes.values()], workersLoopDelayP99Ms: Math.max(...delays.values()) });
  };
  // Servers run for hours: the measured run starts after a warm-up as long
  // as itself (in which the package, with the cores busy, switches its jobs).
  await warmUp(port, conf);
  load(port, conf.enc, conf.c, start, () => {
    for (const w of workers) w.send('stop');
  });
}

function express({ size }, port) {
  const express = require('express');
  const app = express();
  const log = fs.createWriteStream(path.join(os.tmpdir(), `http-fastpath-bench-morgan-${process.pid}.log`));
  app.use(require('helmet')());
  app.use(require('cors')());
  app.use(require('compression')());
  app.use(require('morgan')('combined', { stream: log }));
  app.use(express.json());
  const body = jsonOf(size);
  app.get('/items', (req, res) => res.json(body));
  // morgan may log a response after its connection closed, so the log is
  // never ended: it goes with the process.
  process.on('exit', () => fs.rmSync(log.path, { force: true }));
  return listening(require('http').createServer(app), port);
}
