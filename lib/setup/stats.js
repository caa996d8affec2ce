'use strict';
// Fast-path hit and fallback counters, kept only when HTTP_FASTPATH_STATS=1.

const enabled = process.env.HTTP_FASTPATH_STATS === '1';
const counters = { __proto__: null };

function count(name) {
  counters[name] = (counters[name] || 0) + 1;
}

function snapshot() {
  return enabled ? { ...counters } : undefined;
}

function reset() {
  for (const k of Object.keys(counters)) delete counters[k];
}

module.exports = { enabled, count: enabled ? count : () => {}, snapshot, reset };
