'use strict';
// The native file path under pressure (issue 19): a transfer that cannot get
// what it needs to wait for its socket (a descriptor for the socket's
// duplicate, memory for the poll handle, a Node-API call) carries on with
// Node's own reads from where it stopped, and the client gets the body stock
// sends; under a low RLIMIT_NOFILE every body completes, as in stock. Runs on
// the `testing` build, whose failures can be injected on demand.

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const http = require('http');
const path = require('path');
const crypto = require('crypto');
const { spawn } = require('child_process');

const root = path.join(__dirname, '..');
process.env.HTTP_FASTPATH_ADDON = require('./helpers/test-hooks');
const { fastpath, skip, BIG, FILES, differential, pipeFile } = require('./helpers/file-differential');

const POINTS = { DUP: 1, POLL_INIT: 2, NAPI: 4, POLL_START: 8 };
const ERRNO = { EMFILE: 24, ENOMEM: 12, EBADF: 9 };

// The addon's next waiting transfer fails at `point`, in the patched run only.
function failingAt(point, errno, handler) {
  return (req, res, t, i) => {
    if (fastpath.status().active && i === 0) fastpath.native.__failNextForTesting(point, errno);
    handler(req, res, t, i);
  };
}

test('a transfer that cannot wait, at each point it needs something, is finished by Node intact', { skip }, async () => {
  const cases = [
    ['DUP', 'EMFILE', 'EMFILE'],
    ['POLL_INIT', 'ENOMEM', 'ENOMEM'],
    ['NAPI', 'EBADF', 'ENOMEM'], // a failed Node-API call is reported as ENOMEM
    ['POLL_START', 'EBADF', 'EBADF'],
  ];
  for (const [point, injected, reported] of cases) {
    await differential({
      handler: failingAt(POINTS[point], ERRNO[injected], pipeFile(BIG)),
      pauseMs: 300, timeout: 15000, quietMs: 400,
      expect: { native: 1, waited: 0, handedBack: { [reported]: 1 } },
    });
  }
  // A range read at its own position, and the file's own offset (by fd).
  await differential({
    handler: failingAt(POINTS.DUP, ERRNO.EMFILE, pipeFile(BIG, { start: 1000, end: (20 << 20) + 7 })),
    pauseMs: 300, timeout: 15000, quietMs: 400, expect: { native: 1, waited: 0, handedBack: { EMFILE: 1 } },
  });
  await differential({
    handler: failingAt(POINTS.DUP, ERRNO.EMFILE, pipeFile(BIG, { fd: () => fs.openSync(BIG, 'r') })),
    pauseMs: 300, timeout: 15000, quietMs: 400, expect: { native: 1, waited: 0, handedBack: { EMFILE: 1 } },
  });
  // The next response on the connection goes native again.
  await differential({
    request: ['GET /1 HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /2 HTTP/1.1\r\nHost: x\r\n\r\n'], oneByOne: 700,
    handler: failingAt(POINTS.DUP, ERRNO.EMFILE, (req, res, t, i) => pipeFile(i === 0 ? BIG : FILES[65537])(req, res, t, i)),
    pauseMs: 300, timeout: 15000, quietMs: 800, expect: { native: 2, waited: 0, handedBack: { EMFILE: 1 } },
  });
});

// The scenario: CLIENTS requests of a file larger than the socket
// buffers hold, under a descriptor limit; the clients read nothing until
// every file is open, then everything.
const CLIENTS = 60;
const LIMIT = 200;
const SERVER = `
  const http = require('http');
  const fs = require('fs');
  const file = process.argv[1];
  const size = fs.statSync(file).size;
  const errors = [];
  let opened = 0;
  const server = http.createServer((req, res) => {
    res.setHeader('Content-Length', size);
    const stream = fs.createReadStream(file);
    stream.on('error', (e) => errors.push('stream ' + e.message));
    stream.on('open', () => {
      if (++opened === ${CLIENTS}) setTimeout(() => console.log(JSON.stringify({ waiting: fs.readdirSync('/proc/self/fd').length })), 300);
    });
    stream.pipe(res);
  });
  server.on('clientError', (e) => errors.push('client ' + e.message));
  server.on('connection', (s) => s.on('error', (e) => errors.push('socket ' + e.message)));
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
  process.on('message', () => {
    const fastpath = globalThis[Symbol.for('http-fastpath.state')] ? require(${JSON.stringify(root)}) : null;
    console.log(JSON.stringify({ errors, files: fastpath ? fastpath.status().files : null }));
  });
`;

async function underLimit(preload) {
  const args = [...(preload ? ['-r', root] : []), '-e', SERVER, BIG];
  const child = spawn('sh', ['-c', `ulimit -n ${LIMIT} && exec "$0" "$@"`, process.execPath, ...args],
    { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, HTTP_FASTPATH_ADDON: '' } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const lines = [];
  let wake = () => {};
  let buffered = '';
  child.stdout.on('data', (d) => {
    buffered += d;
    let nl;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      lines.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
      wake();
    }
  });
  const next = () => new Promise((resolve, reject) => {
    const check = () => (lines.length ? resolve(lines.shift()) : (wake = check));
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
    check();
  });
  try {
    const { port } = await next();
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const responses = [];
    const bodies = Array.from({ length: CLIENTS }, () => new Promise((resolve) => {
      const req = http.get({ port, host: '127.0.0.1', agent }, (res) => {
        res.pause();
        responses.push(res);
        const hash = crypto.createHash('sha256');
        let length = 0;
        res.on('data', (d) => { hash.update(d); length += d.length; });
        res.on('end', () => resolve({ length, sha256: hash.digest('hex') }));
        res.on('close', () => resolve({ length, cutOff: true }));
        res.on('error', (e) => resolve({ error: e.message }));
      });
      req.on('error', (e) => resolve({ error: e.message }));
    }));
    const { waiting } = await next();
    for (const res of responses) res.resume();
    const received = await Promise.all(bodies);
    child.send('report');
    const report = await next();
    return { waiting, received, ...report, stderr };
  } finally {
    child.kill();
  }
}

test(`under RLIMIT_NOFILE ${LIMIT}, ${CLIENTS} stalled clients all get complete bodies, as in stock`, { skip }, async () => {
  const expected = { length: fs.statSync(BIG).size, sha256: crypto.createHash('sha256').update(fs.readFileSync(BIG)).digest('hex') };
  const stock = await underLimit(false);
  const patched = await underLimit(true);
  assert.deepStrictEqual(stock.received, Array(CLIENTS).fill(expected), 'stock bodies');
  assert.deepStrictEqual(stock.errors, []);
  assert.deepStrictEqual(patched.received, Array(CLIENTS).fill(expected), 'patched bodies');
  assert.deepStrictEqual(patched.errors, stock.errors);
  assert.strictEqual(patched.stderr, stock.stderr);
  // Every response native; those that found no descriptor to spare were finished by Node.
  assert.strictEqual(patched.files.native, CLIENTS);
  assert.deepStrictEqual(patched.files.stock, {});
  assert.ok(patched.files.handedBack.EMFILE > 0, JSON.stringify(patched.files));
  // At most one descriptor more than stock per waiting transfer, and never the limit.
  assert.ok(patched.waiting <= stock.waiting + patched.files.waited, `descriptors while waiting: stock ${stock.waiting}, patched ${patched.waiting}`);
  assert.ok(patched.waiting < LIMIT, `patched held ${patched.waiting} descriptors`);
});
