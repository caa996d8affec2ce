'use strict';
// npm run soak [-- --requests 1000000 --short 10000]
// Drives a patched server (test/soak/server.js) with keep-alive requests
// (wrk when installed, else a Node client) until it has served --requests,
// then with --short requests on new connections (Connection: close), and
// reports RSS and heap (after GC) at warm-up and at the end, open
// connections and active handles. Fails if heap grew by 5 MB or more after
// warm-up, or sockets/handles were left behind.

const { fork, spawnSync } = require('child_process');
const http = require('http');
const path = require('path');

const args = process.argv.slice(2);
const opt = (k, d) => { const i = args.indexOf(`--${k}`); return i === -1 ? d : Number(args[i + 1]); };
const TOTAL = opt('requests', 1000000);
const SHORT = opt('short', 10000);
const hasWrk = spawnSync('sh', ['-c', 'command -v wrk']).status === 0;

const server = fork(path.join(__dirname, 'server.js'), [], { execArgv: ['--expose-gc'] });
const ask = () => new Promise((resolve) => { server.once('message', resolve); server.send('report'); });
const mb = (b) => (b / 1048576).toFixed(1) + ' MB';

function nodeClient(port, count, keepAlive) {
  return new Promise((resolve) => {
    const agent = new http.Agent({ keepAlive, maxSockets: 50 });
    let started = 0;
    let finished = 0;
    const one = () => {
      if (started >= count) return;
      started++;
      http.get({ port, host: '127.0.0.1', agent, headers: keepAlive ? {} : { Connection: 'close' } }, (res) => {
        res.resume();
        res.on('end', () => { if (++finished === count) { agent.destroy(); resolve(); } else one(); });
      });
    };
    for (let i = 0; i < 50; i++) one();
  });
}

function wrk(port, seconds, close) {
  const extra = close ? ['-H', 'Connection: close'] : [];
  spawnSync('wrk', ['-t1', '-c50', `-d${seconds}s`, ...extra, `http://127.0.0.1:${port}/`], { stdio: 'ignore' });
}

server.once('message', async ({ port, status }) => {
  console.log(`soak: Node ${process.version}, fast path active: ${status.active}, load: ${hasWrk ? 'wrk' : 'node client'}`);
  const drive = async (target, close) => {
    for (;;) {
      const { requests } = await ask();
      const left = target - requests;
      if (left <= 0) return;
      if (hasWrk) wrk(port, Math.max(1, Math.min(10, Math.ceil(left / 15000))), close);
      else await nodeClient(port, Math.min(left, 20000), !close);
    }
  };
  await drive(Math.min(50000, TOTAL), false);
  const warm = await ask();
  console.log(`warm-up: ${warm.requests} requests, rss ${mb(warm.rss)}, heap ${mb(warm.heapUsed)}`);
  await drive(TOTAL, false);
  const keepAlive = await ask();
  console.log(`keep-alive: ${keepAlive.requests} requests, rss ${mb(keepAlive.rss)}, heap ${mb(keepAlive.heapUsed)}`);
  await drive(keepAlive.requests + SHORT, true);
  await new Promise((r) => setTimeout(r, 500));
  const end = await ask();
  console.log(`short-lived: ${end.requests - keepAlive.requests} requests, rss ${mb(end.rss)}, heap ${mb(end.heapUsed)}`);
  const growth = end.heapUsed - warm.heapUsed;
  console.log(`heap growth after warm-up: ${mb(growth)}; rss growth ${mb(end.rss - warm.rss)}; open connections ${end.connections}; active handles ${end.handles} (warm-up ${warm.handles})`);
  const ok = growth < 5 * 1048576 && end.connections === 0 && end.handles <= warm.handles;
  console.log(ok ? 'soak: ok' : 'soak: FAILED');
  server.disconnect();
  process.exitCode = ok ? 0 : 1;
});
