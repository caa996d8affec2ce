'use strict';
// One run of the user's app: started in a process group of its own (so that
// `npm start` and whatever it starts go together), with PORT set, stock or
// with the package preloaded through NODE_OPTIONS, and the probe that reports
// its CPU, memory and (preloaded) status(). Stopped with its whole group.

const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');

const ROOT = path.join(__dirname, '..', '..');
const PROBE = path.join(__dirname, 'probe.js');
const PAGE = 4096;
const { statFields, TICK_US } = require('./host');

// The user's NODE_OPTIONS without a preload of this package (the stock run
// must be stock even where the user's shell preloads it).
function userNodeOptions() {
  const tokens = (process.env.NODE_OPTIONS || '').split(/\s+/).filter(Boolean);
  const out = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if ((t === '-r' || t === '--require' || t === '--import') && /http-fastpath/.test(tokens[i + 1] || '')) { i++; continue; }
    if (/^--(require|import)=.*http-fastpath/.test(t)) continue;
    out.push(t);
  }
  return out;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function portInUse(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.on('connect', () => { c.destroy(); resolve(true); });
    c.on('error', () => resolve(false));
  });
}

function statOf(pid) {
  try {
    return statFields(fs.readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return null; // gone
  }
}

class AppProcess {
  constructor(label, command, { preload, port, pin }) {
    this.label = label;
    this.port = port;
    this.probeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'http-fastpath-check-'));
    const options = [...userNodeOptions(), `--require=${PROBE}`];
    if (preload) options.push(`--require=${ROOT}`);
    const env = { ...process.env, PORT: String(port), NODE_OPTIONS: options.join(' '), HTTP_FASTPATH_CHECK_DIR: this.probeDir };
    // An app that requires the package itself stays stock in the stock run;
    // a switch-off in the user's shell does not apply to the preloaded run.
    if (preload) delete env.HTTP_FASTPATH;
    else env.HTTP_FASTPATH = '0';
    let [file, ...args] = command;
    if (pin !== null) [file, args] = ['taskset', ['-c', String(pin), file, ...args]];
    this.output = '';
    this.exit = null;
    this.child = spawn(file, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], shell: command.length === 1 && /\s/.test(command[0]) });
    const keep = (d) => { this.output = (this.output + d).slice(-4000); };
    this.child.stdout.on('data', keep);
    this.child.stderr.on('data', keep);
    this.child.on('error', (err) => { this.exit = { code: null, signal: null, error: err.message }; });
    this.child.on('exit', (code, signal) => { this.exit ??= { code, signal }; });
  }

  get pid() {
    return this.child.pid;
  }

  // Resolves once the app answers on its port; rejects with a one-line error
  // if it exits first or does not answer in time.
  async waitUntilAnswering(timeoutS) {
    const deadline = Date.now() + timeoutS * 1000;
    while (Date.now() < deadline) {
      if (this.exit !== null) throw new Error(`the ${this.label} app exited before it answered (${this.exitText()})${this.tail()}`);
      if (await portInUse(this.port)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the ${this.label} app did not answer on port ${this.port} within ${timeoutS} s (does it listen on process.env.PORT?)${this.tail()}`);
  }

  exitText() {
    const e = this.exit;
    return e.error ?? (e.signal ? `signal ${e.signal}` : `exit code ${e.code}`);
  }

  tail() {
    const t = this.output.trim();
    return t ? `\n--- its last output ---\n${t.split('\n').slice(-15).join('\n')}` : '';
  }

  // CPU µs and resident bytes of every process of the group (Linux), or of
  // the Node processes by their probes elsewhere.
  usage() {
    if (process.platform === 'linux') {
      let cpuUs = 0;
      let rss = 0;
      for (const entry of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        const f = statOf(entry);
        if (f === null || Number(f[2]) !== this.pid) continue; // f[2]: process group
        cpuUs += (Number(f[11]) + Number(f[12])) * TICK_US;
        rss += Number(f[21]) * PAGE;
      }
      return { cpuUs, rss };
    }
    let cpuUs = 0;
    let rss = 0;
    for (const p of this.probes()) {
      cpuUs += p.cpu.user + p.cpu.system;
      rss += p.rss;
    }
    return { cpuUs, rss };
  }

  probes() {
    const out = [];
    for (const f of fs.readdirSync(this.probeDir)) {
      try {
        out.push(JSON.parse(fs.readFileSync(path.join(this.probeDir, f), 'utf8')));
      } catch {
        // being written
      }
    }
    return out;
  }

  // status() of the process that serves HTTP (preloaded runs).
  status() {
    const serving = this.probes().filter((p) => p.status && p.listening);
    return serving.length ? serving[0].status : null;
  }

  async stop() {
    const kill = (signal) => { try { process.kill(-this.pid, signal); } catch { /* gone */ } };
    if (this.pid !== undefined) {
      kill('SIGTERM');
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && groupAlive(this.pid)) await new Promise((resolve) => setTimeout(resolve, 50));
      if (groupAlive(this.pid)) kill('SIGKILL');
    }
    fs.rmSync(this.probeDir, { recursive: true, force: true });
  }
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

module.exports = { AppProcess, freePort, portInUse };
