'use strict';
// A `ws` echo server with permessage-deflate (one codec per connection, a
// flushed pool job per message each way), ~2 KB JSON messages. The server
// (this process, pin it) echoes; the clients run in a child process (pinned
// to BENCH_LOAD_CPU), each keeping one message in flight, for `duration`
// seconds. Reports messages/s and the server's CPU per message, loop-thread
// CPU, faults, context switches and resident memory (common/proc-probe.js).
// With `rate`, the clients together send that many messages per second (each
// still one in flight) instead of as many as the server can echo: memory
// compared at the same traffic, not at each server's own maximum (a faster
// server allocates faster and V8 grows its heap for that).
// With `cluster=N`, N workers of node:cluster echo on one port (the clients'
// process unpinned, on the same cores), measured after a warm-up as long as
// the run: the figures are the workers' together (common/cluster-probe.js),
// with where each one's codec jobs ran.
//   node benchmark/ws-echo.js [clients=50] [duration=3] [rate=0] [cluster=0]

const { spawn } = require('child_process');
const probe = require('./common/proc-probe');
const clusterProbe = require('./common/cluster-probe');
const { hasCommand } = require('./common/bench');

const conf = Object.fromEntries(process.argv.slice(2).map((a) => a.split('=')).map(([k, v]) => [k, Number(v)]));
const clients = conf.clients || 50;
const duration = conf.duration || 3;
const rate = conf.rate || 0;
const workers = conf.cluster || 0;

// Starts the clients against `port`; calls done(echoed, seconds).
function runClients(port, pin, done) {
  const start = process.hrtime.bigint();
  const load = pin && process.env.BENCH_LOAD_CPU !== undefined && hasCommand('taskset') ? ['taskset', '-c', process.env.BENCH_LOAD_CPU] : [];
  const argv = [...load, process.execPath, __filename, `clients=${clients}`, `duration=${duration}`, `rate=${rate}`];
  const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, WS_ECHO_CLIENT: String(port), NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.on('close', () => done(JSON.parse(out).echoed, Number(process.hrtime.bigint() - start) / 1e9));
}

function report(result) {
  console.log(`ws-echo.js clients=${clients} rate=${rate}${workers ? ` cluster=${workers}` : ''}: ${result.rate.toFixed(2)}`);
  console.log('#json ' + JSON.stringify(result));
}

if (process.env.WS_ECHO_CLIENT) {
  // The load: `clients` connections, each sends the next message when the last came back.
  const WebSocket = require('ws');
  const message = JSON.stringify(Array.from({ length: 24 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['alpha', 'beta'], price: i * 3.7, active: i % 3 !== 0 })));
  let echoed = 0;
  let open = 0;
  const end = Date.now() + duration * 1000;
  const period = rate > 0 ? (clients * 1000) / rate : 0; // ms between one client's sends
  for (let i = 0; i < clients; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${process.env.WS_ECHO_CLIENT}`, { perMessageDeflate: true });
    let next = 0; // when this client's next message is due (with `rate`)
    const send = () => { ws.send(message); next = Math.max(Date.now(), next) + period; };
    ws.on('open', () => { open++; next = Date.now() + (period * i) / clients; setTimeout(send, Math.max(0, next - Date.now())); });
    ws.on('message', () => {
      echoed++;
      if (Date.now() >= end) ws.close();
      else if (period === 0) send();
      else setTimeout(send, Math.max(0, next - Date.now()));
    });
    ws.on('close', () => { if (--open === 0) { process.stdout.write(JSON.stringify({ echoed }) + '\n'); } });
  }
} else if (workers > 0) {
  const cluster = require('cluster');
  if (cluster.isWorker) {
    const { WebSocketServer } = require('ws');
    const wss = new WebSocketServer({ port: Number(process.env.WS_ECHO_PORT), host: '127.0.0.1', perMessageDeflate: true });
    wss.on('connection', (ws) => ws.on('message', (data, binary) => ws.send(data, { binary })));
    wss.on('listening', () => process.send('listening'));
    setInterval(() => process.send({ zlib: clusterProbe.zlibMode() }), 500).unref();
    process.on('message', (m) => { if (m === 'stop') wss.close(() => process.exit(0)); });
  } else {
    clusterProbe.freePort().then(async (port) => {
      const forked = Array.from({ length: workers }, () => cluster.fork({ WS_ECHO_PORT: String(port) }));
      const modes = new Map();
      await Promise.all(forked.map((w) => new Promise((resolve) => w.on('message', (m) => {
        if (m === 'listening') resolve();
        else if (m && m.zlib) modes.set(w.id, m.zlib);
      }))));
      // A warm-up as long as the run, then the measured run.
      runClients(port, false, () => {
        const stop = clusterProbe.start(forked.map((w) => w.process.pid));
        runClients(port, false, (echoed, seconds) => {
          report({ rate: echoed / seconds, messages: echoed, ...stop(echoed), zlibModes: [...modes.values()] });
          for (const w of forked) w.send('stop');
        });
      });
    });
  }
} else {
  const { WebSocketServer } = require('ws');
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: true });
  wss.on('connection', (ws) => ws.on('message', (data, binary) => ws.send(data, { binary })));
  wss.on('listening', () => {
    const stop = probe.start();
    const cpu = process.cpuUsage();
    runClients(wss.address().port, true, (echoed, seconds) => {
      const used = process.cpuUsage(cpu);
      report({ rate: echoed / seconds, messages: echoed, cpuUsPerReq: (used.user + used.system) / echoed, ...stop(echoed) });
      wss.close();
    });
  });
}
