'use strict';
// mime-types' contentType(str) computed once per string, for Express 5
// (express-helpers.js patches the module) and Koa 3 (koa-helpers.js hands
// its response.js a stand-in).

const path = require('path');
const Module = require('module');
const { readPackage, versionIn, resolveOrNull } = require('./package-info');

// mime-types lines whose contentType/lookup/charset internals were read.
const MIME_TYPES = [[3, 0, 0]];

// Each memo keeps at most this many inputs, then stops adding (what it kept
// stays valid). An app sets a handful of distinct Content-Types; one that
// builds them per request gets stock's cost plus one Map lookup.
const MEMO_LIMIT = 256;

// mime-types 3.0's contentType(str): lookup(str) for an extension, then
// charset(type) when the type names none. A kept result is returned only
// while what it was read from is unchanged: the module's lookup, charset and
// types, the extension's entry in types, and mime-db's entry (and its
// charset) for the type.
const EXTRACT_TYPE = /^\s*([^;\s]*)(?:;|\s|$)/;
function makeContentType(mime, db, original) {
  const { lookup, charset, types } = mime;
  const memo = new Map();
  const unchanged = (k) => mime.lookup === lookup && mime.charset === charset && mime.types === types &&
    (k.ext === null || types[k.ext] === k.type) &&
    (k.dbKey === null || (db[k.dbKey] === k.entry && (k.entry === undefined || k.entry.charset === k.entryCharset)));
  function keep(str, result) {
    const ext = str.indexOf('/') === -1 ? path.extname('x.' + str).toLowerCase().slice(1) : null;
    const type = ext === null ? str : types[ext];
    let dbKey = null;
    if (type.indexOf('charset') === -1) {
      const m = EXTRACT_TYPE.exec(type);
      if (m === null) return;
      dbKey = m[1].toLowerCase();
    }
    const entry = dbKey === null ? undefined : db[dbKey];
    memo.set(str, { result, ext, type, dbKey, entry, entryCharset: entry === undefined ? undefined : entry.charset });
  }
  return function contentType(str) {
    const kept = memo.get(str);
    if (kept !== undefined && unchanged(kept)) return kept.result;
    const result = original.apply(this, arguments);
    if (typeof str === 'string' && typeof result === 'string' && memo.size < MEMO_LIMIT) {
      memo.delete(str);
      if (mime.lookup === lookup && mime.charset === charset && mime.types === types) keep(str, result);
    }
    return result;
  };
}

// The mime-types that `requireHere` resolves, with its mime-db, if it is a
// line whose contentType/lookup/charset internals were read; else null.
// `mime`: that module as the caller already has it (a require() from a
// package-load hook must not go through the hook again).
function recogniseMimeTypes(requireHere, mime = undefined) {
  const mimeFile = resolveOrNull(requireHere, 'mime-types');
  if (mimeFile === null) return null;
  const mimePkg = readPackage(path.dirname(mimeFile));
  if (mime === undefined) mime = requireHere('mime-types');
  if (mimePkg === null || !versionIn(mimePkg.version, MIME_TYPES) || typeof mime?.contentType !== 'function' ||
      typeof mime.lookup !== 'function' || typeof mime.charset !== 'function' || mime.types === null || typeof mime.types !== 'object') return null;
  return { mime, db: Module.createRequire(mimeFile)('mime-db'), version: mimePkg.version };
}

module.exports = { makeContentType, recogniseMimeTypes, MEMO_LIMIT };
