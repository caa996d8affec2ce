'use strict';
// What a group of worker processes spends together (Linux /proc): CPU per
// request (user + system over all their threads) and resident memory, summed
// over the workers, sampled every 100 ms while the load runs (mean and peak
// after the first third, as common/proc-probe.js does for one process). Also
// what the cluster benchmarks share: a free port for the workers, and where
// a worker's codec jobs run.
const fs = require('fs');
const net = require('net');
const path = require('path');
const { statFields, TICK_US } = require('./proc-probe');

const PAGE = 4096;

function cpuUs(pid) {
  try {
    const f = statFields(fs.readFileSync(`/proc/${pid}/stat`, 'latin1'));
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  } catch {
    return 0; // ended
  }
}

function rssBytes(pid) {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]) * PAGE;
  } catch {
    return 0;
  }
}

function start(pids) {
  const before = pids.map(cpuUs);
  const samples = [];
  const sampler = setInterval(() => samples.push(pids.reduce((sum, pid) => sum + rssBytes(pid), 0)), 100);
  sampler.unref();
  return function stop(requests) {
    const cpu = pids.reduce((sum, pid, i) => sum + cpuUs(pid) - before[i], 0);
    clearInterval(sampler);
    const loaded = samples.slice(Math.floor(samples.length / 3));
    const mib = (b) => b / (1 << 20);
    return {
      workers: pids.length,
      workersCpuUsPerReq: cpu / requests,
      workersRssMiB: loaded.length ? mib(loaded.reduce((a, b) => a + b, 0) / loaded.length) : null,
      workersRssPeakMiB: loaded.length ? mib(Math.max(...loaded)) : null,
    };
  };
}

// A port free on 127.0.0.1 now, for the workers to share.
function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Where this process's codec jobs run ('stock' without the package).
function zlibMode() {
  const z = globalThis[Symbol.for('http-fastpath.state')] ? require(path.join(__dirname, '..', '..')).status().zlib : undefined;
  return z ? `${z.mode} (${z.inline} inline, ${z.switches ?? 0} switches, idle ${z.idleCores?.toFixed(2)})` : 'stock';
}

module.exports = { start, freePort, zlibMode };
