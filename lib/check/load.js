'use strict';
// The load generator: wrk when it is on the PATH (C, one thread: the least
// CPU per request of the two, which matters where it shares the machine with
// the app), else autocannon from the app's project or this package's.
// Where the machine has two CPUs or more and taskset is there, the app runs
// on CPU 0 and the load on the others.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { hasCommand } = require('./host');

function findAutocannon() {
  for (const from of [process.cwd(), __dirname]) {
    try {
      return require.resolve('autocannon', { paths: [from] });
    } catch {
      // not there
    }
  }
  return null;
}

// Lua's long strings take any text but their own closing bracket.
function luaString(text) {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

function wrkScript(route) {
  const lines = [`wrk.method = ${luaString(route.method)}`];
  for (const [name, value] of Object.entries(route.headers)) lines.push(`wrk.headers[${luaString(name)}] = ${luaString(String(value))}`);
  if (route.body !== undefined) lines.push(`wrk.body = ${luaString(route.body)}`);
  return `${lines.join('\n')}\n`;
}

function makeLoad({ connections, pinned }) {
  const cpus = os.cpus().length;
  const loadCpus = pinned && cpus >= 2 ? (cpus === 2 ? '1' : `1-${cpus - 1}`) : null;
  if (hasCommand('wrk')) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'http-fastpath-wrk-'));
    return {
      name: 'wrk',
      where: loadCpus ? `CPU ${loadCpus}` : 'any CPU',
      run(port, route, duration) {
        const script = path.join(dir, 'route.lua');
        fs.writeFileSync(script, wrkScript(route));
        const args = ['-t1', `-c${connections}`, `-d${duration}s`, '-s', script, `http://127.0.0.1:${port}${route.path}`];
        const [file, argv] = loadCpus ? ['taskset', ['-c', loadCpus, 'wrk', ...args]] : ['wrk', args];
        return new Promise((resolve, reject) => {
          let out = '';
          const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
          child.stdout.on('data', (d) => { out += d; });
          child.stderr.on('data', (d) => { out += d; });
          child.on('error', reject);
          child.on('close', () => {
            const m = /(\d+) requests in ([\d.]+)(ms|s|m)/.exec(out);
            if (!m) return reject(new Error(`wrk printed no result: ${out.trim().split('\n').pop()}`));
            const seconds = Number(m[2]) * (m[3] === 'ms' ? 1e-3 : m[3] === 'm' ? 60 : 1);
            const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out);
            resolve({ requests: Number(m[1]), seconds, non2xx: errors ? Number(errors[1]) : 0 });
          });
        });
      },
      close() { fs.rmSync(dir, { recursive: true, force: true }); },
    };
  }
  const autocannonPath = findAutocannon();
  if (autocannonPath === null) return null;
  const autocannon = require(autocannonPath);
  return {
    name: 'autocannon',
    where: 'this process',
    run(port, route, duration) {
      return new Promise((resolve, reject) => {
        autocannon({
          url: `http://127.0.0.1:${port}${route.path}`, connections, duration,
          method: route.method, headers: route.headers, body: route.body,
        }, (err, res) => {
          if (err) return reject(err);
          resolve({ requests: res.requests.total, seconds: duration, non2xx: res.non2xx });
        });
      });
    },
    close() {},
  };
}

module.exports = { makeLoad, wrkScript };
