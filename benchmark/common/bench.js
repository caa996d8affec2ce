'use strict';
// A small benchmark harness in the shape of Node's benchmark/common.js.
//
//   const bench = createBenchmark(main, { len: [4, 1024], c: [50] });
//   function main(conf) { ...start a server...; bench.http({ path, connections }, done) }
//
// Run with key=value arguments, the file measures that one configuration and
// prints Node's result line (`http/hello.js c=50 len=4: 12345.6`) followed by
// a `#json` line with the details the compare runner reads. Run without
// arguments, it measures every configuration of its grid, each in a child
// process. The server is the benchmark process itself (pin it with taskset);
// the load comes from wrk when installed (pinned to another core), else
// autocannon; `client: 'discard'` uses discard-load.py instead, for large
// bodies that wrk would cap by copying them.

const { spawn, spawnSync, execFileSync } = require('child_process');
const path = require('path');

const DEFAULT_DURATION = Number(process.env.BENCH_DURATION || 5);

const { hasCommand } = require('../../lib/check/host');

// A wrk Lua script that sends `body` with `method`, in a file removed at exit.
function wrkScript(method, body) {
  const fs = require('fs');
  const os = require('os');
  const file = path.join(os.tmpdir(), `http-fastpath-bench-${process.pid}.lua`);
  fs.writeFileSync(file, `wrk.method = ${JSON.stringify(method)}\nwrk.body = ${JSON.stringify(body)}\n`);
  process.on('exit', () => fs.rmSync(file, { force: true }));
  return file;
}

function combinations(grid) {
  let out = [{}];
  for (const [key, values] of Object.entries(grid)) {
    const next = [];
    for (const base of out) for (const v of values) next.push({ ...base, [key]: v });
    out = next;
  }
  return out;
}

function parseConfig(argv, grid) {
  const conf = {};
  for (const arg of argv) {
    const m = /^([\w-]+)=(.*)$/.exec(arg);
    if (!m) continue;
    const sample = grid[m[1]] ? grid[m[1]][0] : undefined;
    conf[m[1]] = typeof sample === 'number' ? Number(m[2]) : m[2];
  }
  return conf;
}

function configString(conf) {
  return Object.entries(conf).map(([k, v]) => `${k}=${v}`).join(' ');
}

class Benchmark {
  constructor(main, grid, options = {}) {
    this.name = path.relative(path.join(__dirname, '..'), require.main.filename);
    this.grid = grid;
    this.options = options;
    const args = process.argv.slice(2);
    if (args.includes('--list-configs')) {
      for (const conf of combinations(grid)) console.log(configString(conf));
      return;
    }
    const given = parseConfig(args, grid);
    if (Object.keys(given).length === 0 && !process.env.BENCH_CHILD) {
      this.runAll();
      return;
    }
    const defaults = Object.fromEntries(Object.entries(grid).map(([k, v]) => [k, v[0]]));
    this.config = { ...defaults, ...given };
    this.duration = Number(this.config.duration || DEFAULT_DURATION);
    process.nextTick(() => main(this.config));
  }

  runAll() {
    for (const conf of combinations(this.grid)) {
      const r = spawnSync(process.execPath, [...process.execArgv, require.main.filename, ...configString(conf).split(' ')],
        { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_CHILD: '1' }, encoding: 'utf8' });
      process.stdout.write(r.stdout.split('\n').filter((l) => !l.startsWith('#json')).join('\n'));
    }
  }

  // Drives `http://127.0.0.1:port/path` for the configured duration and
  // reports requests/s plus the server's CPU time per request.
  // `headers`: extra request headers; `probe`: a proc-probe start() whose
  // figures join the result; `client: 'h2load'` speaks HTTP/2 (`streams`
  // per connection, `tls` for h2 over TLS); `body` (a string) is sent with
  // each request (wrk through a Lua script).
  http({ port, path: urlPath = '/', connections = 50, duration = this.duration, method = 'GET', client = 'wrk', headers = {}, probe, streams = 1, tls = false, body }, done) {
    const url = `http://127.0.0.1:${port}${urlPath}`;
    const stopProbe = probe ? probe() : null;
    const cpuStart = process.cpuUsage();
    const memStart = process.memoryUsage().heapUsed;
    // bytes: what the client received, heads and bodies, including the
    // responses a run's end cut short.
    const finish = (requests, seconds, tool, bytes) => {
      const cpu = process.cpuUsage(cpuStart);
      const result = {
        rate: requests / seconds, requests, seconds, tool, bytes,
        cpuUs: cpu.user + cpu.system,
        cpuUsPerReq: (cpu.user + cpu.system) / requests,
        // The process's own user and kernel time (getrusage: what /proc/<pid>/stat counts).
        userUsPerReq: cpu.user / requests,
        kernelUsPerReq: cpu.system / requests,
        heapDeltaBytes: process.memoryUsage().heapUsed - memStart,
        ...(stopProbe ? stopProbe(requests) : {}),
      };
      this.report(result);
      if (done) done(result);
    };
    // Runs a load generator (pinned to the load core when asked) and hands
    // its exit code and stdout to `parse`.
    const runLoad = (argv, parse) => {
      const loadCore = process.env.BENCH_LOAD_CPU;
      const [exe, ...rest] = loadCore !== undefined && hasCommand('taskset') ? ['taskset', '-c', loadCore, ...argv] : argv;
      const child = spawn(exe, rest, { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      child.on('close', (code) => parse(code, out));
    };
    if (client === 'discard') {
      runLoad(['python3', path.join(__dirname, 'discard-load.py'), String(port), urlPath, String(connections), String(duration)], (code, out) => {
        if (code !== 0) throw new Error(`discard-load.py exited with ${code}:\n${out}`);
        const r = JSON.parse(out);
        if (r.errors > 0) throw new Error(`discard-load.py: ${r.errors} failed responses ${JSON.stringify(r.statuses)}`);
        finish(r.requests, r.seconds, 'discard', r.bytes);
      });
      return;
    }
    const headerArgs = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    if (client === 'h2load') {
      // HTTP/2: h2c prior knowledge, or TLS (ALPN h2) for an https:// url;
      // `streams` concurrent streams per connection.
      const target = `${tls ? 'https' : 'http'}://127.0.0.1:${port}${urlPath}`;
      runLoad(['h2load', '-t1', `-c${connections}`, `-m${streams}`, `-D${duration}`, ...headerArgs, target], (code, out) => {
        const done = /requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(out);
        const time = /finished in ([\d.]+)(m?s)/.exec(out);
        const traffic = /traffic: [\d.]+[KMGT]?B \((\d+)\) total/.exec(out);
        if (code !== 0 || !done || !time) throw new Error(`h2load failed (${code}):\n${out}`);
        if (Number(done[3]) + Number(done[4]) > 0) throw new Error(`h2load: failed responses:\n${out}`);
        const seconds = Number(time[1]) / (time[2] === 'ms' ? 1000 : 1);
        finish(Number(done[2]), seconds, 'h2load', traffic ? Number(traffic[1]) : undefined);
      });
      return;
    }
    if (hasCommand('wrk') && (method === 'GET' || body !== undefined)) {
      const script = body === undefined ? [] : ['-s', wrkScript(method, body)];
      runLoad(['wrk', '-t1', `-c${connections}`, `-d${duration}s`, ...headerArgs, ...script, url], (code, out) => {
        // wrk's time unit is ms, s or (from a minute) m.
        const m = /(\d+) requests in ([\d.]+)(ms|s|m), ([\d.]+)([KMGT]?)B read/.exec(out);
        if (!m) throw new Error(`could not parse wrk output:\n${out}`);
        const seconds = Number(m[2]) * { ms: 0.001, s: 1, m: 60 }[m[3]];
        // wrk prints 1024-based units with two decimals.
        const bytes = Number(m[4]) * 1024 ** ' KMGT'.indexOf(m[5] || ' ');
        finish(Number(m[1]), seconds, 'wrk', bytes);
      });
      return;
    }
    const autocannon = require('autocannon');
    autocannon({ url, connections, duration, method, headers, body }, (err, res) => {
      if (err) throw err;
      finish(res.requests.total, duration, 'autocannon', res.throughput.total);
    });
  }

  // For benchmarks that time a loop themselves: `rate` operations per second.
  end(rate, extra = {}) {
    this.report({ rate, ...extra });
  }

  report(result) {
    console.log(`${this.name} ${configString(this.config)}: ${result.rate.toFixed(2)}`);
    console.log('#json ' + JSON.stringify({ name: this.name, config: configString(this.config), ...result }));
  }
}

function createBenchmark(main, grid, options) {
  return new Benchmark(main, grid, options);
}

module.exports = { createBenchmark, combinations, configString, hasCommand, execFileSync };
