'use strict';
// Finds and loads the Rust addon, the napi-rs way: a local build in the
// package root (`http-fastpath.<platform>.node`, what `npm run build` or the
// install-time fallback makes), then the prebuilt platform package
// (`http-fastpath-<platform>`, an optionalDependency), then nothing. A missing
// or broken binary is reported to the caller, never thrown: the JS fast paths
// do not need it.

const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..', '..');
const BINARY_NAME = 'http-fastpath';
const EXPORTS = ['buildHttpMessage', 'HeaderStore', 'isHttpToken', 'hasInvalidHeaderChar'];

// glibc or musl, as napi-rs names Linux targets. Decided from two small
// files, never from process.report.getReport(): a report lists every open
// handle and resolves a host name for each socket, synchronously, which froze
// a server with idle keep-alive connections for seconds on first use.
//   1. the ldd script, which names its C library (glibc's says "GNU C
//      Library", musl's runs ld-musl);
//   2. what this process has mapped (distroless images have no ldd): the
//      musl loader or glibc's libc.so.6;
//   3. otherwise glibc, the C library of Node's own Linux builds.
const LDD = '/usr/bin/ldd';
const MAPS = '/proc/self/maps';

function libcNamedIn(text, muslMark, glibcMarks) {
  if (text.includes(muslMark)) return 'musl';
  return glibcMarks.some((mark) => text.includes(mark)) ? 'gnu' : null;
}

function readOrEmpty(readFile, file) {
  try {
    return readFile(file, 'latin1');
  } catch {
    return '';
  }
}

function linuxLibc(readFile = fs.readFileSync) {
  return libcNamedIn(readOrEmpty(readFile, LDD), 'musl', ['GNU C Library', 'GLIBC', 'glibc']) ??
    libcNamedIn(readOrEmpty(readFile, MAPS), '/ld-musl-', ['/libc.so.6', '/libc-2.']) ??
    'gnu';
}

// napi-rs platform names: linux-x64-gnu, linux-arm64-musl, darwin-arm64, win32-x64-msvc, ...
function platformName(platform = process.platform, arch = process.arch) {
  if (platform === 'linux') return `linux-${arch}-${linuxLibc()}`;
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

function candidates() {
  const platform = platformName();
  // An explicit file is the only candidate (the tests point it at missing and broken ones).
  if (process.env.HTTP_FASTPATH_ADDON) return { platform, list: [{ source: 'HTTP_FASTPATH_ADDON', request: path.resolve(process.env.HTTP_FASTPATH_ADDON) }] };
  const list = [];
  list.push({ source: 'local build', request: path.join(ROOT, `${BINARY_NAME}.${platform}.node`) });
  list.push({ source: 'platform package', request: `${BINARY_NAME}-${platform}` });
  return { platform, list };
}

// Where the binary would come from, without loading it.
function locate() {
  const { platform, list } = candidates();
  for (const c of list) {
    try {
      return { platform, source: c.source, file: require.resolve(c.request) };
    } catch {}
  }
  return { platform, source: null, file: null };
}

// { addon, source, file, platform, error }: error is null when it loaded,
// else why not ("no native binary ..." when there is none at all).
function loadNative() {
  const { platform, source, file } = locate();
  if (file === null) {
    const error = new Error(`no native binary for ${platform} (no local build, no ${BINARY_NAME}-${platform} package)`);
    error.code = 'HTTP_FASTPATH_NO_BINARY';
    return { addon: null, source: null, file: null, platform, error };
  }
  try {
    const addon = require(file);
    for (const name of EXPORTS) {
      if (!(name in addon)) throw new Error(`${file} lacks ${name}`);
    }
    return { addon, source, file, platform, error: null };
  } catch (error) {
    return { addon: null, source, file, platform, error };
  }
}

module.exports = { loadNative, locate, platformName, linuxLibc, BINARY_NAME, EXPORTS, ROOT };
