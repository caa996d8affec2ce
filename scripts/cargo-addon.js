'use strict';
// Builds the crate's cdylib with cargo and copies it to a .node file: for the
// host (npm test's testing addon) or for another target (linux-arm64).

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');

// The environment for a toolchain { rustc, rustdoc, target, linker }: the
// rustc and rustdoc that go with that cargo, and the target's linker.
function cargoEnv(o) {
  const env = { ...process.env };
  if (o.rustc) env.RUSTC = o.rustc;
  if (o.rustdoc) env.RUSTDOC = o.rustdoc;
  if (o.linker) env[`CARGO_TARGET_${o.target.toUpperCase().replace(/-/g, '_')}_LINKER`] = o.linker;
  return env;
}

// { cargo, rustc, rustdoc, target, linker, release, features, targetDir, out }
function buildAddon(o) {
  const args = ['build', '--quiet', '--lib', '--target-dir', o.targetDir];
  if (o.release) args.push('--release');
  if (o.features) args.push('--features', o.features);
  if (o.target) args.push('--target', o.target);
  execFileSync(o.cargo || 'cargo', args, { cwd: ROOT, stdio: 'inherit', env: cargoEnv(o) });
  const built = path.join(o.targetDir, o.target || '', o.release ? 'release' : 'debug', 'libhttp_fastpath.so');
  fs.copyFileSync(built, o.out);
  return o.out;
}

module.exports = { buildAddon, cargoEnv, ROOT };
