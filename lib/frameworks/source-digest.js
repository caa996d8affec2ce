'use strict';
// How a dependency's function (or file) is recognised: the sha1 of its source
// text (Function.prototype.toString, or the file's text), compared with the
// digests of the versions whose behaviour was read.
const crypto = require('crypto');
const fs = require('fs');

// crypto.hash is Node 20.12+; 20.9-20.11 take the longer way to the same digest.
const textDigest = typeof crypto.hash === 'function' ?
  (text) => crypto.hash('sha1', text, 'hex') :
  (text) => crypto.createHash('sha1').update(text).digest('hex');
const sourceDigest = (fn) => textDigest(Function.prototype.toString.call(fn));

// The digest of a file's text, or null when it cannot be read.
function fileDigest(file) {
  try {
    return textDigest(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

module.exports = { sourceDigest, textDigest, fileDigest };
