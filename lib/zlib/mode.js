'use strict';
// Whether small codec jobs run on the loop thread in this process, and why.
//
// A job run inline costs the process less CPU than the threadpool round trip
// (no hand-offs, codec state kept in the loop thread's arena) but adds to the
// loop thread's own CPU. With one CPU the two are the same thing, so inline
// wins: that is the default where the process can use one CPU at most
// (os.availableParallelism(), which follows the CPU affinity, or a cgroup
// CPU quota of one or less). With spare cores the pool runs codec work
// beside the loop thread, and a `ws` server's loop thread measured +25-30 %
// CPU per message with inline jobs, so jobs stay on the pool unless
// HTTP_FASTPATH_ZLIB=1 says otherwise (docs/compression.md).
//   HTTP_FASTPATH_ZLIB=0  never inline     =1  always     unset  one CPU only

const fs = require('fs');
const os = require('os');

function quotaOf(text) {
  const [quota, period] = text.trim().split(/\s+/);
  const q = Number(quota);
  const p = Number(period);
  return q > 0 && p > 0 ? q / p : Infinity;
}

function readOr(file, fallback) {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    return fallback;
  }
}

// The CPUs the process's cgroup quota allows: the tightest cpu.max on its
// cgroup v2 path, else cgroup v1's cfs quota for its cpu controller path;
// Infinity without a quota.
function cgroupCpus(root = '/sys/fs/cgroup', selfCgroup = readOr('/proc/self/cgroup', '')) {
  let cpus = Infinity;
  const v2 = /^0::(\/.*)$/m.exec(selfCgroup);
  if (v2 !== null) {
    let dir = v2[1].replace(/\/+$/, '');
    for (;;) {
      const max = readOr(`${root}${dir}/cpu.max`, null);
      if (max !== null) cpus = Math.min(cpus, quotaOf(max));
      if (dir === '') break;
      dir = dir.slice(0, dir.lastIndexOf('/'));
    }
  }
  const v1 = /^\d+:(?:[^:]*,)?cpu(?:,[^:]*)?:(\/.*)$/m.exec(selfCgroup);
  if (v1 !== null) {
    const dir = `${root}/cpu${v1[1].replace(/\/+$/, '')}`;
    const quota = readOr(`${dir}/cpu.cfs_quota_us`, null);
    const period = readOr(`${dir}/cpu.cfs_period_us`, null);
    if (quota !== null && period !== null) cpus = Math.min(cpus, quotaOf(`${quota} ${period}`));
  }
  return cpus;
}

// { inline, reason, cpus }: decided once, when the app first loads zlib.
function decide(env = process.env, cpusOf = () => Math.min(os.availableParallelism(), cgroupCpus())) {
  const setting = env.HTTP_FASTPATH_ZLIB;
  if (setting === '0') return { inline: false, reason: 'HTTP_FASTPATH_ZLIB=0', cpus: null };
  if (setting === '1') return { inline: true, reason: 'HTTP_FASTPATH_ZLIB=1', cpus: null };
  const cpus = cpusOf();
  if (cpus <= 1) return { inline: true, reason: 'one CPU', cpus };
  return { inline: false, reason: 'spare cores: jobs stay on the threadpool (HTTP_FASTPATH_ZLIB=1 runs small ones inline)', cpus };
}

module.exports = { decide, cgroupCpus };
