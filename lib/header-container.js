'use strict';
// A fast-mode container for this[kOutHeaders] on Node 20-24 (Node 26 has its
// own). V8 keeps `{ __proto__: null }` literals in dictionary mode; instances
// of a class whose prototype is null are fast-mode objects yet, like the
// literal, have no inherited or enumerable extras, so Node's readers
// (`for…in`, ObjectKeys, `headers[key]`) see the same thing.

class OutgoingHeaders {}
Object.setPrototypeOf(OutgoingHeaders.prototype, null);
delete OutgoingHeaders.prototype.constructor;

// Wraps setHeader/appendHeader so that the store they create is a container.
// If Node's method throws (bad name or value), the store goes back to null:
// writeHead() tests the store's truthiness, so an empty one must not linger.
function makeContainerCreator(adapter, original) {
  const { kOutHeaders } = adapter;
  return function (name, value) {
    if (this[kOutHeaders] !== null || this._header) return original.call(this, name, value);
    this[kOutHeaders] = new OutgoingHeaders();
    try {
      return original.call(this, name, value);
    } catch (err) {
      this[kOutHeaders] = null;
      throw err;
    }
  };
}

module.exports = { OutgoingHeaders, makeContainerCreator };
