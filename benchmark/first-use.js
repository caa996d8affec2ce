'use strict';
// What the first use of a lazily loaded part costs a server that is already
// busy: with N idle keep-alive connections open (each has served one
// request), the wall time of the server's first file response
// (fs.createReadStream(file).pipe(res)), then of a second, and how long the
// first http-fastpath status() takes inside the server. Stock and preloaded,
// interleaved, medians. Issue 23: the native addon's loader once called
// process.report.getReport(), which resolves a name for every open socket.
//   node benchmark/first-use.js [--runs 5] [--idle 50,500] [--lines 20.20.2,24.22.3] [--dry-run]

const { spawn } = require('child_process');
const http = require('http');
const path = require('path');
const { parseArgs, median, printTable } = require('./common/util');
const { nodeFor, root } = require('./common/runner');

const args = parseArgs(process.argv.slice(2), { runs: 5, idle: '50,500', lines: process.versions.node });
if (args['dry-run']) Object.assign(args, { runs: 1, idle: '5' });
const server = path.join(__dirname, 'fixtures', 'first-use-server.js');

function startServer(node, preload) {
  const argv = preload ? ['-r', root, server] : [server];
  const child = spawn(node, argv, { env: { ...process.env, FASTPATH_ROOT: root }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({ child, port: Number(String(d).trim()) }));
    child.once('error', reject);
  });
}

function get(agent, port, url) {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    http.get({ port, host: '127.0.0.1', path: url, agent }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, body }));
    }).on('error', reject);
  });
}

async function once(node, preload, idle) {
  const { child, port } = await startServer(node, preload);
  try {
    const agent = new http.Agent({ keepAlive: true, maxSockets: idle });
    await Promise.all(Array.from({ length: idle }, () => get(agent, port, '/hello')));
    const fresh = new http.Agent({ keepAlive: false });
    const first = await get(fresh, port, '/file');
    const second = await get(fresh, port, '/file');
    const status = preload ? Number((await get(fresh, port, '/status')).body) : NaN;
    agent.destroy();
    return { first: first.ms, second: second.ms, status };
  } finally {
    child.kill();
  }
}

async function main() {
  const rows = [];
  for (const line of String(args.lines).split(',')) {
    const node = nodeFor(line);
    for (const idle of String(args.idle).split(',').map(Number)) {
      const samples = { stock: [], preloaded: [] };
      for (let r = 0; r < args.runs; r++) {
        for (const preload of Math.random() < 0.5 ? [false, true] : [true, false]) {
          samples[preload ? 'preloaded' : 'stock'].push(await once(node, preload, idle));
        }
      }
      const med = (list, key) => median(list.map((s) => s[key]));
      rows.push({
        node: line, 'idle sockets': idle,
        'stock first file ms': med(samples.stock, 'first').toFixed(1),
        'preloaded first file ms': med(samples.preloaded, 'first').toFixed(1),
        'stock second ms': med(samples.stock, 'second').toFixed(1),
        'preloaded second ms': med(samples.preloaded, 'second').toFixed(1),
        'first status() ms': med(samples.preloaded, 'status').toFixed(2),
      });
    }
  }
  printTable(rows);
}

main().catch((err) => { console.error(err); process.exit(1); });
