'use strict';
// Node's own HTTP tests, stock and with the package preloaded. The tests come
// from a clone of denoland/node_test (which vendors Node's test/ per release;
// `git archive` trips on missing fixture blobs, so the files are read with
// `git cat-file --batch`):
//
//   node scripts/node-http-tests.js <node_test clone> <commit> [--node BIN] [--jobs 2] [--out DIR]
//     [--files 'string-decoder|stream'] [--install]
//
// Runs every test/parallel/test-http-*, test-https-* and test-http2-compat-*
// file (or test-<one of --files>*) with its `// Flags:` twice, and prints the
// counts and the files that fail preloaded but pass stock (with the end of
// their stderr). Exit code 1 when there is any. --install preloads a file that
// calls install() at once, for tests that never load http themselves (the
// package patches only once http is loaded).

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');

const ROOT = path.join(__dirname, '..');
const HTTP_FILES = 'http|https|http2-compat';
const wantedIn = (group) => new RegExp(`^test\\/(common\\/|fixtures\\/|parallel\\/test-(${group})[-.])`);
const testFileOf = (group) => new RegExp(`^test-(${group})[-.].*\\.m?js$`);

function extract(repo, commit, out, WANTED) {
  const list = spawnSync('git', ['-C', repo, 'ls-tree', '-r', '--format=%(objectname) %(path)', commit, 'test'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (list.status !== 0) throw new Error(list.stderr);
  const want = list.stdout.split('\n').filter(Boolean).map((l) => l.split(' ')).filter(([, p]) => WANTED.test(p));
  const batch = spawnSync('git', ['-C', repo, 'cat-file', '--batch'], { input: want.map(([sha]) => sha).join('\n') + '\n', maxBuffer: 1 << 30 });
  const data = batch.stdout;
  let at = 0;
  for (const [, file] of want) {
    const nl = data.indexOf(10, at);
    const header = data.subarray(at, nl).toString().split(' ');
    at = nl + 1;
    if (header[1] === 'missing') continue;
    const size = Number(header[2]);
    const dest = path.join(out, file);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.writeFileSync(dest, data.subarray(at, at + size));
    at += size + 1;
  }
}

function runOne(node, dir, file, preload) {
  // `preload`: the path to preload, or null for stock.
  const source = fs.readFileSync(path.join(dir, 'test', 'parallel', file), 'utf8');
  const flags = /^\/\/ Flags: (.*)$/m.exec(source)?.[1].trim().split(/\s+/) ?? [];
  const args = [...flags, ...(preload ? ['-r', preload] : []), path.join(dir, 'test', 'parallel', file)];
  return new Promise((resolve) => {
    const child = spawn(node, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-1500); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, code, signal, stderr });
    });
  });
}

async function main() {
  const [repo, commit] = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !(all[i - 1] ?? '').startsWith('--'));
  const opt = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
  if (!repo || !commit) throw new Error('usage: node scripts/node-http-tests.js <node_test clone> <commit> [--node BIN] [--jobs 2] [--out DIR]');
  const node = opt('--node', process.execPath);
  const dir = opt('--out', fs.mkdtempSync(path.join(os.tmpdir(), 'node-http-tests-')));
  const group = opt('--files', HTTP_FILES);
  if (!fs.existsSync(path.join(dir, 'test', 'parallel'))) extract(repo, commit, dir, wantedIn(group));
  const files = fs.readdirSync(path.join(dir, 'test', 'parallel')).filter((f) => testFileOf(group).test(f)).sort();
  let preload = ROOT;
  if (process.argv.includes('--install')) {
    preload = path.join(dir, 'install-http-fastpath.js');
    fs.writeFileSync(preload, `require(${JSON.stringify(ROOT)}).install();\n`);
  }
  const results = new Map();
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++];
      results.set(file, { stock: await runOne(node, dir, file, null), preloaded: await runOne(node, dir, file, preload) });
    }
  };
  await Promise.all(Array.from({ length: Number(opt('--jobs', 2)) }, worker));
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const passed = (which) => [...results.values()].filter((r) => r[which].ok).length;
  const onlyPreloaded = [...results].filter(([, r]) => r.stock.ok && !r.preloaded.ok);
  console.log(`${version}, tests of ${commit}: ${files.length} files; stock ${passed('stock')} pass, preloaded ${passed('preloaded')} pass; failing only preloaded: ${onlyPreloaded.length}`);
  for (const [file, r] of onlyPreloaded) console.log(`--- ${file} (exit ${r.preloaded.code}${r.preloaded.signal ? `, ${r.preloaded.signal}` : ''})\n${r.preloaded.stderr.trim().split('\n').slice(-12).join('\n')}`);
  process.exitCode = onlyPreloaded.length ? 1 : 0;
}

main().catch((err) => {
  console.error(err.message);
  process.exitCode = 2;
});
