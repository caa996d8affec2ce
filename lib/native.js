'use strict';
// Loads the Rust addon. A missing or broken .node file is reported to the
// caller (who warns once and leaves Node stock), never thrown.

const path = require('path');

const ADDON = path.join(__dirname, '..', `http-fastpath.${process.platform}-${process.arch}.node`);

function loadNative(file = process.env.HTTP_FASTPATH_ADDON || ADDON) {
  try {
    const addon = require(file);
    for (const name of ['buildHttpMessage', 'HeaderStore', 'isHttpToken', 'hasInvalidHeaderChar']) {
      if (!(name in addon)) throw new Error(`addon ${file} lacks ${name}`);
    }
    return { addon, error: null };
  } catch (error) {
    return { addon: null, error };
  }
}

module.exports = { loadNative, ADDON };
