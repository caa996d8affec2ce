'use strict';
// Small helpers shared by the benchmarks: argument parsing, statistics, tables.

function parseArgs(argv, defaults = {}) {
  const out = { ...defaults, _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) { out._.push(a); continue; }
    const eq = a.indexOf('=');
    const key = eq === -1 ? a.slice(2) : a.slice(2, eq);
    let value = eq === -1 ? undefined : a.slice(eq + 1);
    if (value === undefined) {
      const next = argv[i + 1];
      value = next !== undefined && !next.startsWith('--') ? (i++, next) : true;
    }
    value = typeof defaults[key] === 'number' ? Number(value) : value;
    // A repeated flag (--set a=1 --set b=2) collects its values in an array.
    if (key in out && !(key in defaults)) out[key] = [].concat(out[key], value);
    else out[key] = value;
  }
  return out;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function mean(xs) {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function variance(xs) {
  const m = mean(xs);
  return xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
}

function printTable(rows) {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(width[i])).join('  ');
  console.log(line(cols));
  for (const r of rows) console.log(line(cols.map((c) => r[c])));
}

module.exports = { parseArgs, median, mean, variance, printTable };
