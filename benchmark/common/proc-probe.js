'use strict';
// What a server process spends beyond its total CPU, read from /proc
// (Linux): minor page faults and context switches summed over its threads,
// the loop thread's own CPU (its tid is the pid), resident memory, and the
// event loop's delay (p99 in ms: how long a timer waited, as other requests
// wait). start() takes a snapshot; its stop(requests) gives the figures.
// Resident memory is sampled every 100 ms while the load runs: a figure
// read at stop() comes after the clients have gone (a WebSocket server has
// freed its connections' codecs by then), so the mean and peak of the
// samples after the first third (the warm-up) are what is reported.
const fs = require('fs');
const { monitorEventLoopDelay } = require('perf_hooks');

const { statFields, TICK_US } = require('../../lib/check/host');

function threadStat(tid) {
  try {
    const f = statFields(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'latin1'));
    const status = fs.readFileSync(`/proc/self/task/${tid}/status`, 'latin1');
    const ctx = /voluntary_ctxt_switches:\s+(\d+)[\s\S]*nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status);
    return { minflt: Number(f[7]), cpuUs: (Number(f[11]) + Number(f[12])) * TICK_US, ctx: ctx ? Number(ctx[1]) + Number(ctx[2]) : 0 };
  } catch {
    return null; // the thread ended
  }
}

function snapshot() {
  const out = { minflt: 0, ctx: 0, loopCpuUs: 0, threads: new Map() };
  for (const tid of fs.readdirSync('/proc/self/task')) {
    const s = threadStat(tid);
    if (s === null) continue;
    out.threads.set(tid, s);
    if (Number(tid) === process.pid) out.loopCpuUs = s.cpuUs;
  }
  return out;
}

function start() {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const samples = [];
  const sample = () => {
    const { rss, heapTotal } = process.memoryUsage();
    samples.push({ rss, heapTotal });
  };
  const sampler = setInterval(sample, 100);
  sampler.unref();
  const before = snapshot();
  return function stop(requests) {
    const after = snapshot();
    delay.disable();
    clearInterval(sampler);
    if (samples.length === 0) sample();
    const loaded = samples.slice(Math.floor(samples.length / 3));
    const mib = (bytes) => bytes / (1 << 20);
    const meanOf = (field) => mib(loaded.reduce((sum, m) => sum + m[field], 0) / loaded.length);
    const rss = meanOf('rss');
    const heapTotal = meanOf('heapTotal');
    let minflt = 0;
    let ctx = 0;
    for (const [tid, s] of after.threads) {
      const b = before.threads.get(tid) || { minflt: 0, ctx: 0 };
      minflt += s.minflt - b.minflt;
      ctx += s.ctx - b.ctx;
    }
    return {
      loopCpuUsPerReq: (after.loopCpuUs - before.loopCpuUs) / requests,
      faultsPerReq: minflt / requests,
      ctxPerReq: ctx / requests,
      rssMiB: rss,
      rssPeakMiB: mib(Math.max(...loaded.map((m) => m.rss))),
      // V8's heap, and what is not: malloc (codec state), code, stacks.
      heapTotalMiB: heapTotal,
      offHeapMiB: rss - heapTotal,
      loopDelayP99Ms: delay.percentile(99) / 1e6,
    };
  };
}

module.exports = { start, statFields, TICK_US };
