'use strict';
// Loads a second, independent copy of packages: `load()` runs with every
// module under node_modules/ taken out of the require cache, and what it
// loaded is taken out again afterwards, so later require() calls get the
// first copies back. Used to hold a stock copy of Express (loaded while the
// package is uninstalled) beside the patched one in one process.

const path = require('path');

const NODE_MODULES = path.join(__dirname, '..', '..', 'node_modules');

function loadFresh(load) {
  const saved = new Map();
  for (const key of Object.keys(require.cache)) {
    if (key.startsWith(NODE_MODULES)) {
      saved.set(key, require.cache[key]);
      delete require.cache[key];
    }
  }
  try {
    return load();
  } finally {
    for (const key of Object.keys(require.cache)) if (key.startsWith(NODE_MODULES)) delete require.cache[key];
    for (const [key, mod] of saved) require.cache[key] = mod;
  }
}

module.exports = { loadFresh };
