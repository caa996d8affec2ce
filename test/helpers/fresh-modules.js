'use strict';
// Loads a second, independent copy of packages: `load()` runs with every
// module under node_modules/ taken out of the require cache, and what it
// loaded is taken out again afterwards, so later require() calls get the
// first copies back. Used to hold a stock copy of Express (loaded while the
// package is uninstalled) beside the patched one in one process.

const path = require('path');

const NODE_MODULES = path.join(__dirname, '..', '..', 'node_modules');

// `under` narrows what is reloaded (say, one package's directory and a
// path separator): the rest stays cached and shared with the first copies.
function loadFresh(load, under = NODE_MODULES) {
  const saved = new Map();
  for (const key of Object.keys(require.cache)) {
    if (key.startsWith(under)) {
      saved.set(key, require.cache[key]);
      delete require.cache[key];
    }
  }
  try {
    return load();
  } finally {
    for (const key of Object.keys(require.cache)) if (key.startsWith(under)) delete require.cache[key];
    for (const [key, mod] of saved) require.cache[key] = mod;
  }
}

module.exports = { loadFresh };
