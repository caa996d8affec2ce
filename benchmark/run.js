'use strict';
// The headline benchmarks, stock vs patched, interleaved.
//
//   npm run bench                 this Node: table + benchmark/results/node-<version>.csv
//   npm run bench:all             Node 20, 22, 24 and 26 (installed into .cache/ if
//                                 missing): per-version CSVs, summary.md, chart.svg
//   node benchmark/run.js --dry-run   one short run of each piece (CI smoke test)
// Options: --runs N (default 10), --duration S (default 5), --filter X.

const fs = require('fs');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { parseArgs, median, printTable } = require('./common/util');
const runner = require('./common/runner');
const { nodeFor } = runner;
const { barChart } = require('./common/chart');

const HEADLINE = [
  { file: 'http/hello.js', config: 'len=11 c=50' },
  { file: 'http/simple.js', config: 'type=bytes len=4 chunks=1 chunkedEnc=0 c=50' },
  { file: 'http/set-header.js', config: 'res=setHeaderImplicit c=50' },
  { file: 'http/express.js', config: 'c=50' },
  { file: 'http/fastify.js', config: 'c=50' },
  { file: 'http/koa.js', config: 'c=50' },
  { file: 'http/hono.js', config: 'c=50' },
];
const FRAMEWORKS = ['express', 'fastify', 'koa', 'hono'];
const LIMIT = { file: 'http/raw-net.js', config: 'c=50' };
const VERSIONS = ['20', '22.23.5', '24.22.3', '26.12.1'];

const args = parseArgs(process.argv.slice(2), { runs: 10, duration: 5 });
const resultsDir = path.join(__dirname, 'results');

function benchOne(node, { runs, duration }) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const filters = [].concat(args.filter ?? []).filter((s) => typeof s === 'string');
  const jobs = HEADLINE.filter((j) => filters.length === 0 || filters.some((f) => j.file.includes(f)));
  const binaries = [{ label: 'stock', cmd: [node] }, { label: 'patched', cmd: [node, '-r', runner.root] }];
  const log = (l) => process.stderr.write(`${version} ${l}\n`);
  const results = runner.compare({ binaries, jobs, runs, duration, log });
  const limit = runner.compare({ binaries: [binaries[0]], jobs: [LIMIT], runs: Math.max(1, Math.ceil(runs / 3)), duration, log });
  const rows = runner.summarise(results, 'stock', 'patched');
  const rawCpu = median(limit[0].samples.stock.map((r) => r.cpuUsPerReq));
  const hello = results.find((r) => r.file === 'http/hello.js');
  const helloCpu = hello ? median(hello.samples.patched.map((r) => r.cpuUsPerReq)) : NaN;
  return { version, results, rows, rawCpu, helloCpu };
}

function write(name, text) {
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(path.join(resultsDir, name), text);
}

function report(r) {
  console.log(`\n## Node ${r.version}`);
  printTable(r.rows);
  console.log(`physical limit (raw net server writing a prebuilt response): ${r.rawCpu.toFixed(1)} µs CPU/request; ` +
    `patched hello: ${r.helloCpu.toFixed(1)} µs/request = ${(r.helloCpu / r.rawCpu).toFixed(2)}x the limit`);
}

if (args['dry-run']) {
  // Smoke test: every piece runs and yields numbers; no timing is judged.
  const r = benchOne(process.execPath, { runs: 1, duration: 1 });
  report(r);
  for (const row of r.rows) if (!(Number(row.old) > 0 && Number(row.new) > 0)) throw new Error(`no rate for ${row.benchmark}`);
  for (const micro of ['micro/build-message.js', 'micro/validate.js', 'micro/express-birth.js', 'micro/server-pieces.js', 'micro/koa-context.js', 'startup.js', 'first-use.js']) {
    const m = spawnSync(process.execPath, [path.join(__dirname, micro), '--dry-run'], { encoding: 'utf8' });
    if (m.status !== 0) throw new Error(`${micro}: ${m.stderr}`);
    console.log(`${micro} --dry-run: ok (${m.stdout.trim().split('\n').length - 1} rows)`);
  }
  // The static-file servers, one short round each (4 KiB).
  const files = spawnSync(process.execPath, [path.join(__dirname, 'files.js'), '--runs', '1', '--duration', '1', '--size', '4k', '--no-write'], { encoding: 'utf8' });
  const fileRows = files.stdout.split('\n').filter((l) => l.startsWith('| v'));
  if (files.status !== 0 || fileRows.length !== 4) throw new Error(`files.js: ${files.stdout}${files.stderr}`);
  console.log(`files.js --dry-run: ok (${fileRows.length} rows)`);
  // One second of a benchmark file, preloaded; `ok` tests its stdout.
  const dryRunOf = (file, config, ok) => {
    const r = spawnSync(process.execPath, ['-r', runner.root, path.join(__dirname, file), ...config, 'duration=1'], { encoding: 'utf8', env: { ...process.env, BENCH_CHILD: '1' } });
    if (r.status !== 0 || !ok.test(r.stdout)) throw new Error(`${file}: ${r.stdout}${r.stderr}`);
    console.log(`${file} ${config.join(' ')} --dry-run: ok`);
  };
  // HTTP/2, when h2load is installed: the compat JSON route, Fastify with http2.
  if (spawnSync('sh', ['-c', 'command -v h2load']).status === 0) {
    dryRunOf('http2/compat.js', ['api=compat'], /: \d/);
    dryRunOf('http2/frameworks.js', ['framework=fastify'], /: \d/);
  }
  // Compressed responses from each server, and the ws echo, with proc-probe's figures.
  for (const framework of ['express', 'koa', 'fastify', 'floor']) {
    dryRunOf('http/compression.js', [`framework=${framework}`, 'size=2048', 'enc=br'], /#json .*"rssMiB"/);
  }
  dryRunOf('ws-echo.js', ['clients=10'], /#json .*"rssMiB"/);
  // Two cluster workers each (the workers' figures and where their jobs ran).
  dryRunOf('http/compression.js', ['framework=express', 'size=2048', 'enc=gzip', 'cluster=2'], /#json .*"workersRssMiB".*"zlibModes":\["(inline|pool)/);
  dryRunOf('ws-echo.js', ['clients=10', 'cluster=2'], /#json .*"workersCpuUsPerReq"/);
  // The Express routes, the POST stack included, Fastify's and the floor's.
  for (const config of [['framework=express5', 'route=stack'], ['framework=express4', 'route=send'], ['framework=fastify', 'route=stack'], ['framework=express5', 'route=params'],
    ['framework=floor', 'route=stack'], ['framework=floor', 'route=params']]) {
    dryRunOf('http/express-routes.js', config, /#json .*"cpuUsPerReq"/);
  }
  // Express 5's JSON route beside a WebSocket server, behind socket.io and behind a forwarding listener.
  for (const shape of ['ws', 'socketio', 'forwarder']) dryRunOf('http/express-shapes.js', [`shape=${shape}`, 'framework=express5'], /#json .*"cpuUsPerReq"/);
  // POST bodies: each framework once, JSON and form, both sizes.
  for (const config of [['framework=express5', 'parser=json', 'body=300'], ['framework=express4', 'parser=form', 'body=8k'], ['framework=fastify', 'parser=json', 'body=8k'],
    ['framework=koa', 'parser=form', 'body=300'], ['framework=http', 'parser=json', 'body=300']]) {
    dryRunOf('http/body.js', config, /#json .*"cpuUsPerReq"/);
  }
  console.log('benchmark dry run: ok');
} else {
  const versions = args.all ? VERSIONS : [process.versions.node];
  const all = [];
  for (const v of versions) {
    const r = benchOne(args.all ? nodeFor(v) : process.execPath, args);
    all.push(r);
    write(`node-${r.version}.csv`, runner.csv(r.results));
    report(r);
  }
  if (args.all) {
    const md = ['| Node | benchmark | stock req/s | patched req/s | improvement | confidence | CPU µs/req stock → patched |', '|---|---|---|---|---|---|---|'];
    for (const r of all) {
      for (const row of r.rows) md.push(`| ${r.version} | ${row.benchmark} | ${row.old} | ${row.new} | ${row.improvement} | ${row.confidence} | ${row['cpu µs/req'] ?? ''} |`);
      md.push(`| ${r.version} | raw net limit | | | | | ${r.rawCpu.toFixed(1)} (patched hello = ${(r.helloCpu / r.rawCpu).toFixed(2)}x) |`);
    }
    write('summary.md', md.join('\n') + '\n');
    const groups = all.map((r) => {
      const h = r.results.find((x) => x.file === 'http/hello.js');
      return { label: r.version, values: h ? [median(h.samples.stock.map((s) => s.rate)), median(h.samples.patched.map((s) => s.rate))] : [0, 0] };
    });
    write('chart.svg', barChart({ title: 'hello.js (setHeader + end): requests/s, median', groups, series: ['stock', 'http-fastpath'] }));
    for (const fw of FRAMEWORKS) {
      const fwGroups = all.map((r) => {
        const x = r.results.find((res) => res.file === `http/${fw}.js`);
        return { label: r.version, values: x ? [median(x.samples.stock.map((s) => s.rate)), median(x.samples.patched.map((s) => s.rate))] : [0, 0] };
      });
      write(`chart-${fw}.svg`, barChart({ title: `${fw}.js (JSON route, six headers): requests/s, median`, groups: fwGroups, series: ['stock', 'http-fastpath'] }));
    }
    console.log(`\nwrote ${path.relative(process.cwd(), resultsDir)}/summary.md, chart.svg and chart-<framework>.svg`);
  }
}
