'use strict';
// `http-fastpath check`: will the package help this app, and is every byte
// the same? Starts the app stock and preloaded, compares each route's raw
// responses, then loads each route against both apps in interleaved rounds
// and prints a table (Markdown, or JSON with --json). Exit code 0: identical;
// 1: a difference or a crash (the evidence printed); 2: bad input or a
// timeout (one line). Both apps are stopped, with their process groups, on
// every way out.

const os = require('os');
const { spawnSync } = require('child_process');
const { parse } = require('./options');
const { AppProcess, freePort, portInUse } = require('./app-process');
const { hasCommand } = require('./host');
const { exchange, firstDifference, varyingParts, describeVarying } = require('./exchange');
const { makeLoad } = require('./load');

class Failure extends Error {
  constructor(message, exitCode) {
    super(message);
    this.exitCode = exitCode;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function ports(o) {
  if (o.port === null) return [await freePort(), await freePort()];
  for (const p of [o.port, o.port + 1]) if (await portInUse(p)) throw new Failure(`port ${p} is in use (the stock app gets --port, the preloaded one --port + 1)`, 2);
  return [o.port, o.port + 1];
}

function recognised(status) {
  if (status === null) return ['status(): not reported (the app did not serve HTTP from a Node process that loaded the package)'];
  const lines = [];
  const ex = status.frameworks?.express;
  // The binding's counts mean something once the app has loaded Express.
  if (ex && (ex.bound > 0 || ex.helpers !== undefined)) {
    const shapes = Object.entries(ex.shapes ?? {}).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ');
    lines.push(`Express: ${ex.bound} server(s) bound${shapes ? ` (${shapes})` : ''}${Object.keys(ex.stepAside).length ? `, left stock: ${JSON.stringify(ex.stepAside)}` : ''}`);
    for (const c of ex.helpers?.copies ?? []) lines.push(`Express ${c.version}: ${c.accelerated.join(', ') || 'nothing'} accelerated`);
    for (const c of ex.helpers?.stock ?? []) lines.push(`Express ${c.version}: stock (${c.reason})`);
  }
  lines.push(`active: ${status.active}; native addon: ${status.native?.loaded ? 'loaded' : `off (${status.native?.reason})`}`);
  if (status.files) lines.push(`files: ${JSON.stringify(status.files)}`);
  if (status.zlib) lines.push(`codec jobs: ${JSON.stringify(status.zlib)}`);
  return lines;
}

// The parts left uncompared because two stock runs differ there, per route.
function varyingLines(varying) {
  if (varying.length === 0) return '';
  return `Not compared, because two stock runs of the same requests differ there too:\n${varying.map((v) => `- ${v.route}: ${v.parts.join(', ')}`).join('\n')}\n\n`;
}

function table(results) {
  const rows = ['| route | stock req/s | preloaded req/s | ratio (spread) | CPU µs/req stock → preloaded | RSS MB stock → preloaded |', '|---|---|---|---|---|---|'];
  for (const r of results) {
    rows.push(`| ${r.route} | ${Math.round(r.stock.rps)} | ${Math.round(r.preloaded.rps)} | ×${r.ratio.toFixed(2)} (${r.spread.map((x) => x.toFixed(2)).join('–')}) | ` +
      `${r.stock.cpuUsPerReq.toFixed(1)} → ${r.preloaded.cpuUsPerReq.toFixed(1)} | ${r.stock.rssMB.toFixed(0)} → ${r.preloaded.rssMB.toFixed(0)} |`);
  }
  return rows.join('\n');
}

async function measure(app, port, route, load, duration) {
  const before = app.usage();
  const r = await load.run(port, route, duration);
  const after = app.usage();
  if (app.exit !== null) throw new Failure(`the ${app.label} app exited during the load on ${route.label} (${app.exitText()})${app.tail()}`, 1);
  return { rps: r.requests / r.seconds, cpuUsPerReq: r.requests ? (after.cpuUs - before.cpuUs) / r.requests : 0, rssMB: after.rss / 2 ** 20, non2xx: r.non2xx };
}

async function run(o, say) {
  const pin = hasCommand('taskset') && os.cpus().length >= 2 ? 0 : null;
  const [stockPort, preloadedPort] = await ports(o);
  const apps = [];
  const stopAll = () => Promise.all(apps.map((a) => a.stop()));
  const onSignal = () => { stopAll().then(() => process.exit(130)); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let load = null;
  try {
    say(`starting the app stock on port ${stockPort}${pin !== null ? ' (pinned to CPU 0)' : ''}: ${o.command.join(' ')}`);
    const stock = new AppProcess('stock', o.command, { preload: false, port: stockPort, pin });
    apps.push(stock);
    await stock.waitUntilAnswering(o.startupTimeout).catch((err) => { throw new Failure(err.message, 2); });
    say(`starting it preloaded on port ${preloadedPort}`);
    const preloaded = new AppProcess('preloaded', o.command, { preload: true, port: preloadedPort, pin });
    apps.push(preloaded);
    await preloaded.waitUntilAnswering(o.startupTimeout).catch((err) => { throw new Failure(err.message, 2); });

    const differences = [];
    const varying = [];
    const ask = (app, port, route) => exchange(port, route, { timeoutS: o.requestTimeout }).catch((err) => {
      throw new Failure(app.exit !== null ? `the ${app.label} app exited on ${route.label} (${app.exitText()})${app.tail()}` : err.message, app.exit !== null ? 1 : 2);
    });
    for (const route of o.routes) {
      const answers = [await ask(stock, stockPort, route), await ask(preloaded, preloadedPort, route)];
      let diff = firstDifference(answers[0], answers[1], o.mask);
      let varies = [];
      if (diff !== null) {
        // Asked again, stock: what differs between two stock runs of the same
        // requests (a timing header, a request id, a counter) is the app's
        // own doing, and is not compared.
        const parts = varyingParts(answers[0], await ask(stock, stockPort, route), o.mask);
        varies = describeVarying(parts);
        if (varies.length > 0) diff = firstDifference(answers[0], answers[1], o.mask, parts);
      }
      const note = varies.length > 0 ? `; not compared, as two stock runs differ there too: ${varies.join(', ')}` : '';
      say(`${route.label}: ${diff === null ? `the same bytes (${answers[0].length} responses${note})` : `DIFFERENT${note}`}`);
      if (varies.length > 0) varying.push({ route: route.label, parts: varies });
      if (diff !== null) differences.push({ route: route.label, lines: diff });
    }
    const status = preloaded.status();
    if (differences.length > 0) {
      return { exitCode: 1, identical: false, differences, varying, results: [], status, load: null };
    }

    load = makeLoad({ connections: o.connections, pinned: pin !== null });
    if (load === null) throw new Failure('no load generator: install wrk (apt install wrk, brew install wrk) or autocannon (npm install --save-dev autocannon)', 2);
    if (load.name === 'autocannon' && pin !== null) spawnSync('taskset', ['-pc', `1-${os.cpus().length - 1}`, String(process.pid)], { stdio: 'ignore' });
    say(`load: ${load.name} on ${load.where}, ${o.connections} connections, ${o.rounds} rounds of ${o.duration} s per route and app, interleaved, after ${o.warmup} s of warm-up`);
    const results = [];
    for (const route of o.routes) {
      const rounds = { stock: [], preloaded: [] };
      // Not counted: both apps' code for this route is compiled and warm.
      for (const [app, port] of [[stock, stockPort], [preloaded, preloadedPort]]) await measure(app, port, route, load, o.warmup);
      for (let r = 0; r < o.rounds; r++) {
        const order = r % 2 === 0 ? [['stock', stock, stockPort], ['preloaded', preloaded, preloadedPort]] : [['preloaded', preloaded, preloadedPort], ['stock', stock, stockPort]];
        for (const [name, app, port] of order) rounds[name].push(await measure(app, port, route, load, o.duration));
        say(`${route.label} round ${r + 1}/${o.rounds}: stock ${Math.round(rounds.stock[r].rps)} req/s, preloaded ${Math.round(rounds.preloaded[r].rps)} req/s`);
      }
      const summary = (list) => ({
        rps: median(list.map((x) => x.rps)), cpuUsPerReq: median(list.map((x) => x.cpuUsPerReq)),
        rssMB: Math.max(...list.map((x) => x.rssMB)), non2xx: list.reduce((n, x) => n + x.non2xx, 0),
      });
      const ratios = rounds.stock.map((s, i) => rounds.preloaded[i].rps / s.rps);
      results.push({
        route: route.label, stock: summary(rounds.stock), preloaded: summary(rounds.preloaded),
        ratio: median(ratios), spread: [Math.min(...ratios), Math.max(...ratios)],
      });
    }
    return { exitCode: 0, identical: true, differences, varying, results, status: preloaded.status(), load: { name: load.name, where: load.where, appPinned: pin !== null ? 'CPU 0' : 'no' } };
  } finally {
    load?.close();
    await stopAll();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

async function main(argv, { out = process.stdout, err = process.stderr } = {}) {
  let o;
  try {
    o = parse(argv);
  } catch (e) {
    err.write(`${e.message}\n`);
    return 2;
  }
  const say = o.json ? () => {} : (line) => err.write(`http-fastpath check: ${line}\n`);
  let report;
  try {
    report = await run(o, say);
  } catch (e) {
    if (!(e instanceof Failure)) throw e;
    if (o.json) out.write(`${JSON.stringify({ exitCode: e.exitCode, error: e.message })}\n`);
    else err.write(`http-fastpath check: ${e.message}\n`);
    return e.exitCode;
  }
  if (o.json) {
    out.write(`${JSON.stringify(report, null, 2)}\n`);
    return report.exitCode;
  }
  if (!report.identical) {
    out.write('## http-fastpath check: the responses differ\n\n');
    for (const d of report.differences) out.write(`${d.route}\n${d.lines.join('\n')}\n\n`);
    out.write(`${varyingLines(report.varying)}The load was not run. Stock and preloaded differ where two stock runs of the same requests agree. ` +
      'That can be the package, or the app: something it computes once per process (an instance id, a start time) or that the package\'s ' +
      'speed changes (a value measured in time). Please report it to http-fastpath with the lines above, the Node version and the app\'s ' +
      'framework and middleware versions; until then run this app without the package, or --mask a header you know can differ by itself.\n');
    return 1;
  }
  out.write(`## http-fastpath check\n\nEvery byte the same on ${report.results.length} route(s) (Date${o.mask.length > 1 ? `, ${o.mask.slice(1).join(', ')}` : ''} masked).\n\n`);
  out.write(varyingLines(report.varying));
  out.write(`${table(report.results)}\n\n`);
  out.write(`Node ${process.version}; load: ${report.load.name} (${report.load.where}); app pinned: ${report.load.appPinned}; medians of ${o.rounds} interleaved rounds of ${o.duration} s.\n\n`);
  out.write(`What the package recognised in the preloaded app:\n${recognised(report.status).map((l) => `- ${l}`).join('\n')}\n`);
  return 0;
}

module.exports = { main };
