'use strict';
// What a package directory says about itself, for the rooms that recognise
// dependencies by version.

const fs = require('fs');
const path = require('path');

function readPackage(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  } catch {
    return null;
  }
}

const versionOf = (pkg) => (pkg !== null && typeof pkg.version === 'string' ? pkg.version : 'unknown');

// Whether `version` (x.y.z) is in one of `ranges`: [major, lowest minor, highest minor].
function versionIn(version, ranges) {
  const m = /^(\d+)\.(\d+)\.\d+$/.exec(version);
  if (m === null) return false;
  const major = +m[1];
  const minor = +m[2];
  return ranges.some(([M, lo, hi]) => major === M && minor >= lo && minor <= hi);
}

// The file `id` resolves to from `requireFrom`, or null.
function resolveOrNull(requireFrom, id) {
  try {
    return requireFrom.resolve(id);
  } catch {
    return null;
  }
}

module.exports = { readPackage, versionOf, versionIn, resolveOrNull };
