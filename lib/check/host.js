'use strict';
// What the check command (and the benchmarks) read of the machine: whether a
// program is on the PATH, and Linux's /proc/<pid>/stat lines.

const { spawnSync } = require('child_process');

const TICK_US = 1e6 / 100; // clock ticks (USER_HZ) are 100 per second on Linux

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

// A /proc/…/stat line's fields from 3 (state) on: ppid is f[1], the process
// group f[2], minflt f[7], utime f[11], stime f[12] (clock ticks), rss f[21] (pages).
function statFields(text) {
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

module.exports = { hasCommand, statFields, TICK_US };
