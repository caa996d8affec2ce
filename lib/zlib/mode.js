'use strict';
// Whether small codec jobs run on the loop thread in this process, and why.
//
// A job run inline costs the process less CPU than the threadpool round trip
// (no hand-offs, codec state kept in the loop thread's arena) but adds to the
// loop thread's own CPU. With one CPU the two are the same thing, so inline
// wins: that is the default where the process can use one CPU at most
// (os.availableParallelism(), which follows the CPU affinity, or a cgroup
// CPU quota of one or less). With more CPUs it depends on whether the CPUs
// have idle time for the pool: one process with idle cores beside it keeps its jobs
// on the pool (a `ws` server's loop thread measured +25-30 % CPU per message
// inline there); a cluster worker whose siblings keep every core busy, or a
// process on a full machine, is in the one-CPU case again. That is measured
// each second while the process runs (lib/zlib/contention.js), and jobs
// follow it (docs/compression.md).
//   HTTP_FASTPATH_ZLIB=0  never inline     =1  always     unset  as measured

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

// The CPUs the process's cgroup quota allows, and the cgroup v2 directory
// that sets it (null for v1 or none): the tightest cpu.max on its cgroup v2
// path, else cgroup v1's cfs quota for its cpu controller path; Infinity
// without a quota.
function cgroupQuota(root = '/sys/fs/cgroup', selfCgroup = readOr('/proc/self/cgroup', '')) {
  let cpus = Infinity;
  let dirOfQuota = null;
  const v2 = /^0::(\/.*)$/m.exec(selfCgroup);
  if (v2 !== null) {
    let dir = v2[1].replace(/\/+$/, '');
    for (;;) {
      const max = readOr(`${root}${dir}/cpu.max`, null);
      if (max !== null && quotaOf(max) < cpus) {
        cpus = quotaOf(max);
        dirOfQuota = `${root}${dir}`;
      }
      if (dir === '') break;
      dir = dir.slice(0, dir.lastIndexOf('/'));
    }
  }
  const v1 = /^\d+:(?:[^:]*,)?cpu(?:,[^:]*)?:(\/.*)$/m.exec(selfCgroup);
  if (v1 !== null) {
    const dir = `${root}/cpu${v1[1].replace(/\/+$/, '')}`;
    const quota = readOr(`${dir}/cpu.cfs_quota_us`, null);
    const period = readOr(`${dir}/cpu.cfs_period_us`, null);
    if (quota !== null && period !== null && quotaOf(`${quota} ${period}`) < cpus) {
      cpus = quotaOf(`${quota} ${period}`);
      dirOfQuota = null;
    }
  }
  return { cpus, dir: dirOfQuota };
}

function cgroupCpus(root, selfCgroup) {
  return cgroupQuota(root, selfCgroup).cpus;
}

// { inline, adaptive, reason, cpus, quotaDir }: decided when the app first
// loads zlib; `adaptive` jobs start on the pool and follow the measurement.
function decide(env = process.env, quotaOf = () => {
  const q = cgroupQuota();
  return { cpus: Math.min(os.availableParallelism(), q.cpus), quota: q.cpus, dir: q.dir };
}) {
  const setting = env.HTTP_FASTPATH_ZLIB;
  if (setting === '0') return { inline: false, adaptive: false, reason: 'HTTP_FASTPATH_ZLIB=0', cpus: null };
  if (setting === '1') return { inline: true, adaptive: false, reason: 'HTTP_FASTPATH_ZLIB=1', cpus: null };
  const { cpus, quota = Infinity, dir = null } = quotaOf();
  if (cpus <= 1) return { inline: true, adaptive: false, reason: 'one CPU', cpus };
  return { inline: false, adaptive: true, reason: REASONS.pool, cpus, quota, quotaDir: dir };
}

const REASONS = {
  pool: 'spare cores: jobs stay on the threadpool while the CPUs have idle time (measured twice a second)',
  inline: 'cores busy: the threadpool would compete with loop threads for them (measured twice a second)',
};

module.exports = { decide, cgroupCpus, cgroupQuota, readOr, REASONS };
