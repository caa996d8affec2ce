'use strict';
// A PATH that holds exactly the programs a test names: a temporary directory
// of links to each one as the given PATH finds it. Hiding a program by
// leaving its directory out of PATH fails where it shares that directory with
// the programs a test needs (Debian's /usr/bin holds cargo, node and npm when
// all three come from apt; Homebrew and container images do the same).

const fs = require('fs');
const os = require('os');
const path = require('path');

function findOnPath(name, searchPath) {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

// `programs` maps a name to a file, or to null to look it up on `searchPath`.
// Throws one error naming every program it could not find.
function pathWithOnly(programs, searchPath = process.env.PATH || '') {
  const found = Object.entries(programs).map(([name, file]) => [name, file || findOnPath(name, searchPath)]);
  const missing = found.filter(([, file]) => file === null).map(([name]) => name);
  if (missing.length > 0) {
    throw new Error(`cannot set up a PATH of only ${Object.keys(programs).join(', ')}: ${missing.join(', ')} not found on PATH=${searchPath}`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fastpath-path-'));
  for (const [name, file] of found) fs.symlinkSync(fs.realpathSync(file), path.join(dir, name));
  return dir;
}

module.exports = { findOnPath, pathWithOnly };
