'use strict';
// `http-fastpath check` run on the example apps (test/fixtures/check/):
// Express (three routes from a routes file, a POST among them), Fastify, Koa
// and plain http each answer the same bytes stock and preloaded and get the
// table; an app made to differ when preloaded is caught (exit 1, both sides
// shown); an app that never listens, a route that hangs, a port in use and a
// missing command end with one line (exit 2) and leave no process behind.
// The figures are not judged (no timing in tests): one round of 1 s.

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const net = require('net');
const path = require('path');
const { spawn } = require('child_process');
const { findOnPath, pathWithOnly } = require('./helpers/program-path');

const CLI = path.join(__dirname, '..', 'bin', 'http-fastpath.js');
const APPS = path.join(__dirname, 'fixtures', 'check');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fastpath-check-'));
test.after(() => fs.rmSync(work, { recursive: true, force: true }));

let marks = 0;

// Runs the command line; resolves with its exit code, output, and the
// processes (by an environment mark) still alive once it has exited.
function check(args, env = {}) {
  const mark = `fastpath-check-${process.pid}-${++marks}`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'check', ...args], { env: { ...process.env, ...env, FASTPATH_CHECK_MARK: mark } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr, left: processesMarked(mark) }));
  });
}

function processesMarked(mark) {
  const left = [];
  for (const pid of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`FASTPATH_CHECK_MARK=${mark}`)) left.push(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return left;
}

const QUICK = ['--rounds', '1', '--duration', '1', '--warmup', '1', '--connections', '10'];
const app = (name) => ['--', process.execPath, path.join(APPS, name)];
const tableRows = (stdout) => stdout.split('\n').filter((l) => /^\| (GET|POST) /.test(l));

test('an Express app: three routes from a file, every byte the same, a table row each', async () => {
  const routes = path.join(work, 'routes.txt');
  fs.writeFileSync(routes, [
    '# a comment',
    'GET /',
    'GET /users/7?sort=asc',
    JSON.stringify({ method: 'POST', path: '/items', headers: { 'Content-Type': 'application/json' }, body: { name: 'a' } }),
  ].join('\n'));
  const r = await check([...QUICK, '--routes', routes, ...app('express-app.js')]);
  assert.strictEqual(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /Every byte the same on 3 route\(s\)/);
  assert.deepStrictEqual(tableRows(r.stdout).map((l) => l.split(' | ')[0]), ['| GET /', '| GET /users/7?sort=asc', '| POST /items']);
  assert.match(r.stdout, /- Express: 1 server\(s\) bound \(app 1\)/);
  assert.match(r.stderr, /POST \/items: the same bytes \(2 responses\)/);
  assert.deepStrictEqual(r.left, []);
});

for (const name of ['fastify-app.js', 'koa-app.js', 'plain-app.js']) {
  test(`${name}: the same bytes and a table`, async () => {
    const r = await check([...QUICK, '--url', '/', ...app(name)]);
    assert.strictEqual(r.code, 0, r.stderr + r.stdout);
    assert.strictEqual(tableRows(r.stdout).length, 1, r.stdout);
    assert.match(r.stdout, /- active: true/);
    assert.deepStrictEqual(r.left, []);
  });
}

test('--json: the same verdict and figures as data; without wrk on the PATH the load is autocannon', async () => {
  const programs = { node: process.execPath, sh: null };
  if (findOnPath('taskset', process.env.PATH)) programs.taskset = null;
  const noWrk = pathWithOnly(programs);
  const r = await check([...QUICK, '--json', '--url', '/', ...app('plain-app.js')], { PATH: noWrk });
  fs.rmSync(noWrk, { recursive: true, force: true });
  assert.strictEqual(r.code, 0, r.stderr + r.stdout);
  const report = JSON.parse(r.stdout);
  assert.strictEqual(report.identical, true);
  assert.deepStrictEqual(report.results.map((x) => x.route), ['GET /']);
  assert.ok(report.results[0].stock.rps > 0 && report.results[0].preloaded.cpuUsPerReq > 0, r.stdout);
  assert.strictEqual(report.status.active, true);
  assert.strictEqual(report.load.name, 'autocannon');
});

test('an app that answers differently when preloaded: exit 1, both sides shown', async () => {
  const r = await check([...QUICK, '--url', '/', '--url', '/differs', ...app('plain-app.js')]);
  assert.strictEqual(r.code, 1, r.stderr + r.stdout);
  assert.match(r.stdout, /the responses differ\n\nGET \/differs\nresponse 1, byte \d+:\n {2}stock: {5}".*end is \d+ characters long"\n {2}preloaded: ".*end is \d+ characters long"/);
  assert.match(r.stderr, /GET \/: the same bytes/);
  assert.deepStrictEqual(r.left, []);
});

test('values an app changes on every request are told apart from differences: not compared, and named', async () => {
  const r = await check([...QUICK, '--url', '/', ...app('volatile-app.js')]);
  assert.strictEqual(r.code, 0, r.stderr + r.stdout);
  const varying = 'X-Request-Id, Set-Cookie, X-Response-Time, 1 word\\(s\\) of response 1\'s body, 1 word\\(s\\) of response 2\'s body';
  assert.match(r.stderr, new RegExp(`GET /: the same bytes \\(2 responses; not compared, as two stock runs differ there too: ${varying}\\)`));
  assert.match(r.stdout, new RegExp(`Not compared, because two stock runs of the same requests differ there too:\n- GET /: ${varying}\n`));
  assert.strictEqual(tableRows(r.stdout).length, 1);
  assert.deepStrictEqual(r.left, []);
});

test('a difference two stock runs do not show is still caught beside values that vary, and the message blames no one', async () => {
  const r = await check([...QUICK, '--url', '/differs', ...app('volatile-app.js')]);
  assert.strictEqual(r.code, 1, r.stderr + r.stdout);
  assert.match(r.stdout, /GET \/differs\nresponse 1, byte \d+:\n {2}stock: {5}".*\\"end\\":\d+\}"\n {2}preloaded: ".*\\"end\\":\d+\}"/);
  assert.match(r.stdout, /- GET \/differs: X-Request-Id, Set-Cookie, X-Response-Time, 1 word\(s\) of response 1's body/);
  assert.match(r.stdout, /Please report it to http-fastpath with the lines above/);
  assert.doesNotMatch(r.stdout, /The package changes what this app sends/);
  assert.deepStrictEqual(r.left, []);
});

test('an app that requires the package itself is stock in the stock run: the difference is caught', async () => {
  const r = await check([...QUICK, '--url', '/', ...app('requires-package-app.js')], { HTTP_FASTPATH: '0' });
  assert.strictEqual(r.code, 1, r.stderr + r.stdout);
  assert.match(r.stdout, /stock: {5}".*active: false"\n {2}preloaded: ".*active: true"/);
  assert.deepStrictEqual(r.left, []);
});

test('an app that never listens: one line within the stated time, exit 2, nothing left running', async () => {
  const r = await check(['--startup-timeout', '2', ...app('plain-app.js')], { NEVER_LISTEN: '1' });
  assert.strictEqual(r.code, 2);
  assert.match(r.stderr, /^http-fastpath check: the stock app did not answer on port \d+ within 2 s \(does it listen on process\.env\.PORT\?\)$/m);
  assert.strictEqual(r.stdout, '');
  assert.deepStrictEqual(r.left, []);
});

test('a route that hangs: one line, exit 2, both apps stopped', async () => {
  const r = await check(['--url', '/hang', '--request-timeout', '1', ...app('plain-app.js')]);
  assert.strictEqual(r.code, 2);
  assert.match(r.stderr, /^http-fastpath check: GET \/hang did not answer within 1 s$/m);
  assert.deepStrictEqual(r.left, []);
});

test('a port in use, a missing command, an unknown option: one line, exit 2', async () => {
  const busy = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => busy.on('listening', resolve));
  const port = busy.address().port;
  const inUse = await check(['--port', String(port), ...app('plain-app.js')]);
  busy.close();
  assert.strictEqual(inUse.code, 2);
  assert.strictEqual(inUse.stderr, `http-fastpath check: port ${port} is in use (the stock app gets --port, the preloaded one --port + 1)\n`);
  const noCommand = await check(['--url', '/']);
  assert.strictEqual(noCommand.code, 2);
  assert.match(noCommand.stderr, /^no command to start the app/);
  const unknown = await check(['--bogus', ...app('plain-app.js')]);
  assert.strictEqual(unknown.code, 2);
  assert.match(unknown.stderr, /^unknown option --bogus\n/);
});
