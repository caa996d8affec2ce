'use strict';
// First use must never stall (issue 23): with idle keep-alive connections
// open, the first file response (which uses the native addon) and the first
// status() call nothing that enumerates handles or resolves names. The
// libc choice behind the addon's file name is made from ldd's text or the
// process's own mappings, and stays right without either.

const test = require('node:test');
const assert = require('node:assert');
const http = require('http');
const path = require('path');
const fs = require('fs');
const { spawn, spawnSync } = require('child_process');
const { linuxLibc, platformName } = require('../lib/native/loader');

const root = path.join(__dirname, '..');
const spyFile = path.join(__dirname, 'fixtures', 'spy-enumerators.js');
const IDLE = 30;

const GLIBC_LDD = '#! /bin/bash\n# This file is part of the GNU C Library.\nTEXTDOMAIN=libc\necho \'ldd (Debian GLIBC 2.36-9+deb12u14) 2.36\'\n';
const MUSL_LDD = '#!/bin/sh\nexec /lib/ld-musl-x86_64.so.1 --list "$@"\n';
const GLIBC_MAPS = '7f01-7f02 r--p 00000000 fe:00 326279 /usr/lib/x86_64-linux-gnu/libc.so.6\n';
const MUSL_MAPS = '7f01-7f02 r-xp 00000000 fe:00 1234 /lib/ld-musl-x86_64.so.1\n';
// The same on arm64 (Graviton with Debian, Alpine's arm64 image).
const GLIBC_ARM64_MAPS = 'ffff8001-ffff8002 r-xp 00000000 fe:00 4311 /usr/lib/aarch64-linux-gnu/libc.so.6\n';
const MUSL_ARM64_LDD = '#!/bin/sh\nexec /lib/ld-musl-aarch64.so.1 --list "$@"\n';
const MUSL_ARM64_MAPS = 'ffff8001-ffff8002 r-xp 00000000 fe:00 1234 /lib/ld-musl-aarch64.so.1\n';

function fakeFiles(files) {
  const read = (file) => {
    read.asked.push(file);
    if (!(file in files)) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
    return files[file];
  };
  read.asked = [];
  return read;
}

test('libc from ldd\'s text, else from the process\'s mappings, else glibc', () => {
  const cases = [
    [{ '/usr/bin/ldd': GLIBC_LDD, '/proc/self/maps': MUSL_MAPS }, 'gnu', ['/usr/bin/ldd']],
    [{ '/usr/bin/ldd': MUSL_LDD }, 'musl', ['/usr/bin/ldd']],
    [{ '/proc/self/maps': MUSL_MAPS }, 'musl', ['/usr/bin/ldd', '/proc/self/maps']],
    [{ '/proc/self/maps': GLIBC_MAPS }, 'gnu', ['/usr/bin/ldd', '/proc/self/maps']],
    [{ '/usr/bin/ldd': '#!/bin/sh\necho something else\n', '/proc/self/maps': MUSL_MAPS }, 'musl', ['/usr/bin/ldd', '/proc/self/maps']],
    [{}, 'gnu', ['/usr/bin/ldd', '/proc/self/maps']],
    [{ '/usr/bin/ldd': MUSL_ARM64_LDD }, 'musl', ['/usr/bin/ldd']],
    [{ '/proc/self/maps': MUSL_ARM64_MAPS }, 'musl', ['/usr/bin/ldd', '/proc/self/maps']],
    [{ '/proc/self/maps': GLIBC_ARM64_MAPS }, 'gnu', ['/usr/bin/ldd', '/proc/self/maps']],
  ];
  for (const [files, libc, asked] of cases) {
    const read = fakeFiles(files);
    assert.strictEqual(linuxLibc(read), libc, JSON.stringify(files));
    assert.deepStrictEqual(read.asked, asked);
  }
});

test('the libc chosen for this process is the one Node reports it runs on', () => {
  const report = process.report.getReport();
  const expected = report.header.glibcVersionRuntime ? 'gnu' : 'musl';
  assert.strictEqual(linuxLibc(), expected);
  assert.strictEqual(linuxLibc(fakeFiles({ '/proc/self/maps': fs.readFileSync('/proc/self/maps', 'latin1') })), expected);
  assert.strictEqual(platformName(), `linux-${process.arch}-${expected}`);
});

function get(agent, port, url) {
  return new Promise((resolve, reject) => {
    http.get({ port, host: '127.0.0.1', path: url, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    }).on('error', reject);
  });
}

test('with idle keep-alive connections open, the first file response and the first status() enumerate nothing', async () => {
  const server = `
    const http = require('http');
    const fs = require('fs');
    const fastpath = require(${JSON.stringify(root)});
    const file = ${JSON.stringify(__filename)};
    const size = fs.statSync(file).size;
    const s = http.createServer((req, res) => {
      if (req.url === '/file') {
        res.setHeader('Content-Length', size);
        fs.createReadStream(file).pipe(res);
      } else if (req.url === '/report') {
        const st = fastpath.status();
        res.end(JSON.stringify({ calls: globalThis.enumeratorCalls(), files: st.files, loaded: st.native.loaded }));
      } else {
        res.end('idle');
      }
    });
    s.keepAliveTimeout = 60000;
    s.listen(0, '127.0.0.1', () => {
      globalThis.resetEnumeratorCalls();
      process.stdout.write(s.address().port + '\\n');
    });
  `;
  const child = spawn(process.execPath, ['-r', spyFile, '-e', server], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  try {
    const port = await new Promise((resolve, reject) => {
      child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
      child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
    });
    const idle = new http.Agent({ keepAlive: true, maxSockets: IDLE });
    await Promise.all(Array.from({ length: IDLE }, () => get(idle, port, '/hello')));
    const fresh = new http.Agent({ keepAlive: false });
    assert.deepStrictEqual(await get(fresh, port, '/file'), fs.readFileSync(__filename));
    const report = JSON.parse(await get(fresh, port, '/report'));
    idle.destroy();
    assert.strictEqual(report.loaded, true);
    assert.deepStrictEqual(report.files, { native: 1, waited: 0, handedBack: {}, stock: {} });
    assert.ok(Object.keys(report.calls).includes('process.report.getReport'));
    for (const [name, count] of Object.entries(report.calls)) assert.strictEqual(count, 0, `${name} was called ${count} times`);
  } finally {
    child.kill();
  }
  assert.strictEqual(stderr, '');
});

test('a first status() that loads the addon, with sockets open, enumerates nothing', () => {
  const r = spawnSync(process.execPath, ['-r', spyFile, '-e', `
    const fastpath = require(${JSON.stringify(root)});
    const net = require('net');
    const server = net.createServer(() => {}).listen(0, '127.0.0.1', () => {
      const sockets = Array.from({ length: ${IDLE} }, () => net.connect(server.address().port, '127.0.0.1'));
      let connected = 0;
      for (const s of sockets) s.on('connect', () => {
        if (++connected < sockets.length) return;
        globalThis.resetEnumeratorCalls();
        const st = fastpath.status();
        console.log(JSON.stringify({ calls: globalThis.enumeratorCalls(), loaded: st.native.loaded, platform: st.native.platform }));
        process.exit(0);
      });
    });
  `], { cwd: root, encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.strictEqual(out.loaded, true);
  assert.strictEqual(out.platform, platformName());
  for (const [name, count] of Object.entries(out.calls)) assert.strictEqual(count, 0, `${name} was called ${count} times`);
});
