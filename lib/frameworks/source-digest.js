'use strict';
// How a dependency's function is recognised: the sha1 of its source text
// (Function.prototype.toString), compared with the digests of the versions
// whose behaviour was read.
const crypto = require('crypto');

const sourceDigest = (fn) => crypto.hash('sha1', Function.prototype.toString.call(fn), 'hex');

module.exports = { sourceDigest };
