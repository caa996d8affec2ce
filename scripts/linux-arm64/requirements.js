'use strict';
// What building for and running on linux-arm64 needs on an x86_64 Linux
// machine, each thing with the Debian package that provides it. Missing ones
// are installed with apt-get when this process may (root, apt-get present);
// otherwise the error names exactly which packages to install.

const fs = require('fs');
const { spawnSync } = require('child_process');

const TARGET = 'aarch64-unknown-linux-gnu';
const LINKER = 'aarch64-linux-gnu-gcc';

function run(cmd, args, options = {}) {
  return spawnSync(cmd, args, { encoding: 'utf8', ...options });
}

function onPath(program) {
  return run('sh', ['-c', `command -v ${program}`]).status === 0;
}

// The Rust standard library for the target is the one piece rustup cannot
// fetch here; Debian ships it as libstd-rust-web-dev:arm64 for its own
// rustc-web. Either toolchain is fine: the one on PATH when it has the
// target (rustup target add), else Debian's in /usr/bin.
function rustcHasTarget(rustc) {
  const r = run(rustc, ['--print', 'target-libdir', '--target', TARGET]);
  if (r.status !== 0) return false;
  const dir = r.stdout.trim();
  return fs.existsSync(dir) && fs.readdirSync(dir).some((f) => f.startsWith('libstd-') && f.endsWith('.rlib'));
}

function rustToolchain() {
  if (onPath('cargo') && onPath('rustc') && rustcHasTarget('rustc')) return { cargo: 'cargo', rustc: 'rustc', rustdoc: 'rustdoc' };
  if (fs.existsSync('/usr/bin/cargo') && fs.existsSync('/usr/bin/rustc') && rustcHasTarget('/usr/bin/rustc')) {
    return { cargo: '/usr/bin/cargo', rustc: '/usr/bin/rustc', rustdoc: '/usr/bin/rustdoc' };
  }
  return null;
}

const BUILD = [
  { what: `a Rust toolchain with the ${TARGET} standard library`, packages: ['rustc-web', 'cargo-web', 'libstd-rust-web-dev:arm64'], present: () => rustToolchain() !== null },
  { what: `the cross linker ${LINKER}`, packages: ['gcc-aarch64-linux-gnu'], present: () => onPath(LINKER) },
  // Without it the link fails with "cannot find -ldl".
  { what: 'the arm64 C library to link against', packages: ['libc6-dev-arm64-cross'], present: () => fs.existsSync('/usr/aarch64-linux-gnu/lib/libc.so') },
];

const RUN = [
  { what: 'qemu-user for arm64', packages: ['qemu-user-static'], present: () => fs.existsSync('/usr/libexec/qemu-binfmt/aarch64-binfmt-P') || onPath('qemu-aarch64-static') },
  // Node's arm64 build runs on the multiarch loader and libraries; the cross
  // ones under /usr/aarch64-linux-gnu (QEMU_LD_PREFIX) make it spin forever
  // after its stdio setup.
  { what: 'the arm64 loader and C library', packages: ['libc6:arm64'], present: () => fs.existsSync('/lib/ld-linux-aarch64.so.1') },
  { what: 'the arm64 C++ runtime', packages: ['libstdc++6:arm64'], present: () => fs.existsSync('/usr/lib/aarch64-linux-gnu/libstdc++.so.6') },
  // Node 26's arm64 build links libatomic.
  { what: 'the arm64 atomics library', packages: ['libatomic1:arm64'], present: () => fs.existsSync('/usr/lib/aarch64-linux-gnu/libatomic.so.1') },
];

function canInstall() {
  return process.getuid && process.getuid() === 0 && onPath('apt-get') && onPath('dpkg');
}

function say(line) {
  process.stderr.write(`linux-arm64: ${line}\n`);
}

// Makes sure every requirement in `list` is present; throws naming the
// packages when they are missing and cannot be installed here.
function ensure(list) {
  const missing = list.filter((r) => !r.present());
  if (missing.length === 0) return;
  const packages = [...new Set(missing.flatMap((r) => r.packages))];
  const named = missing.map((r) => `${r.what} (${r.packages.join(', ')})`).join('; ');
  if (!canInstall()) {
    throw new Error(`missing: ${named}. On Debian 12: sudo dpkg --add-architecture arm64 && sudo apt-get update && sudo apt-get install ${packages.join(' ')}`);
  }
  say(`installing ${packages.join(' ')} (missing: ${missing.map((r) => r.what).join('; ')})`);
  const step = (cmd, args) => {
    const r = run(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}): ${(r.stderr || '').trim().split('\n').slice(-3).join(' | ')}`);
  };
  if (packages.some((p) => p.endsWith(':arm64')) && !run('dpkg', ['--print-foreign-architectures']).stdout.split('\n').includes('arm64')) {
    step('dpkg', ['--add-architecture', 'arm64']);
  }
  step('apt-get', ['update', '-qq']);
  step('apt-get', ['install', '-y', '-qq', ...packages]);
  const still = list.filter((r) => !r.present());
  if (still.length > 0) throw new Error(`still missing after apt-get install: ${still.map((r) => r.what).join('; ')}`);
}

module.exports = { TARGET, LINKER, BUILD, RUN, ensure, rustToolchain, say };
