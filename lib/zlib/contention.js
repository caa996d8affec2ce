'use strict';
// Whether the CPUs this process may use have idle time, measured twice a
// second while codec jobs can go either way (a process with more than one
// CPU).
//
// Pool jobs pay for themselves only on a core that would otherwise idle.
// That is the case for one process with idle cores beside it; it is not for
// a cluster worker (node:cluster, PM2), whose siblings keep every core busy,
// nor on a machine or cgroup that other processes fill: there the pool's
// threads compete with loop threads for the same cores, and what counts is
// the CPU the whole process spends, as with one CPU. So the signal is the
// idle CPU left, in cores: on the CPUs of the process's affinity
// (/proc/stat; steal counts as busy) and, under a cgroup v2 quota, in the
// cgroup (quota minus its cpu.stat usage); the smaller counts. Inline after
// a streak of samples (2 s) with idle < ENTER, back to the pool after a
// streak with idle > LEAVE. Inline jobs cost less CPU, so the switch can
// free what it measured: a switch that comes less than FLAP_MS after the
// streak the previous one needed doubles the streak the next one needs (up
// to MAX_STREAK), so the mode cannot flap faster than that. A switch is one
// boolean that each job reads.

const { readOr } = require('./mode');

// HTTP_FASTPATH_ZLIB_SAMPLE_MS changes the period, for tests that make a
// switch happen within a short suite.
const INTERVAL_MS = Number(process.env.HTTP_FASTPATH_ZLIB_SAMPLE_MS) > 0 ? Number(process.env.HTTP_FASTPATH_ZLIB_SAMPLE_MS) : 500;
const STREAK = 4; // 2 s
const MAX_STREAK = 96; // 48 s
const FLAP_MS = 30000;
const ENTER = 0.25;
const LEAVE = 0.75;

// "0-3,8,10-11" -> [0, 1, 2, 3, 8, 10, 11]
function parseCpuList(text) {
  const cpus = [];
  for (const part of text.trim().split(',')) {
    const [lo, hi = lo] = part.split('-').map(Number);
    if (Number.isInteger(lo) && Number.isInteger(hi)) for (let c = lo; c <= hi; c++) cpus.push(c);
  }
  return cpus;
}

// Busy and total jiffies summed over `cpus` from /proc/stat's per-CPU lines
// (busy: user, nice, system, irq, softirq, steal; total adds idle, iowait).
function cpuTimes(statText, cpus) {
  const wanted = new Set(cpus);
  let busy = 0;
  let total = 0;
  for (const line of statText.split('\n')) {
    const m = /^cpu(\d+) (.*)$/.exec(line);
    if (m === null || !wanted.has(Number(m[1]))) continue;
    const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = m[2].trim().split(/\s+/).map(Number);
    const b = user + nice + system + irq + softirq + steal;
    busy += b;
    total += b + idle + iowait;
  }
  return { busy, total };
}

// A cgroup v2 cpu.stat's usage_usec, or null.
function cgroupUsage(cpuStatText) {
  const m = /^usage_usec (\d+)$/m.exec(cpuStatText || '');
  return m === null ? null : Number(m[1]);
}

// The sources one sample reads; tests pass fakes.
function systemSources({ quota = Infinity, cgroupDir = null } = {}) {
  const cpus = parseCpuList((/^Cpus_allowed_list:\s*(.*)$/m.exec(readOr('/proc/self/status', '')) || [])[1] || '');
  return {
    cpus: cpus.length > 0 ? cpus : null,
    quota,
    procStat: () => readOr('/proc/stat', ''),
    cgroupStat: cgroupDir === null || quota === Infinity ? null : () => readOr(`${cgroupDir}/cpu.stat`, ''),
    nowMicros: () => Number(process.hrtime.bigint() / 1000n),
  };
}

function takeSample(src) {
  return {
    at: src.nowMicros(),
    machine: src.cpus === null ? null : cpuTimes(src.procStat(), src.cpus),
    cgroup: src.cgroupStat === null ? null : cgroupUsage(src.cgroupStat()),
  };
}

// Idle cores between two samples, or null when /proc says nothing.
function idleCores(a, b, src) {
  const elapsed = b.at - a.at;
  if (elapsed <= 0) return null;
  let idle = null;
  if (a.machine !== null && b.machine !== null && b.machine.total > a.machine.total) {
    const n = src.cpus.length;
    idle = n * (1 - (b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total));
  }
  if (a.cgroup !== null && b.cgroup !== null) {
    const inCgroup = src.quota - (b.cgroup - a.cgroup) / elapsed;
    idle = idle === null ? inCgroup : Math.min(idle, inCgroup);
  }
  return idle;
}

// The decision as samples come (`at` in ms, one every `interval`):
// `onChange(inline, idle)` at each switch. The back-off is forgotten only
// after FLAP_MS without a switch beyond the streak it asked for.
function makeDecider(onChange, interval = INTERVAL_MS) {
  let inline = false;
  let streak = 0;
  let needed = STREAK;
  let lastSwitch = -Infinity;
  return function next(idle, at) {
    if (idle === null) return inline;
    const wantsSwitch = inline ? idle > LEAVE : idle < ENTER;
    streak = wantsSwitch ? streak + 1 : 0;
    const soon = at - lastSwitch < FLAP_MS + needed * interval;
    if (streak >= (soon ? needed : STREAK)) {
      inline = !inline;
      streak = 0;
      needed = soon ? Math.min(needed * 2, MAX_STREAK) : STREAK;
      lastSwitch = at;
      onChange(inline, idle);
    }
    return inline;
  };
}

// Samples every INTERVAL_MS on an unref'd timer; stop() ends it.
function watch(src, onChange, interval = INTERVAL_MS) {
  const decide = makeDecider(onChange, interval);
  let last = takeSample(src);
  let lastIdle = null;
  const timer = setInterval(() => {
    const now = takeSample(src);
    lastIdle = idleCores(last, now, src);
    last = now;
    decide(lastIdle, now.at / 1000);
  }, interval);
  timer.unref();
  return { stop: () => clearInterval(timer), lastIdle: () => lastIdle };
}

module.exports = { watch, systemSources, takeSample, idleCores, makeDecider, parseCpuList, cpuTimes, cgroupUsage, STREAK, MAX_STREAK, FLAP_MS, ENTER, LEAVE };
