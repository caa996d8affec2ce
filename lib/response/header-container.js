'use strict';
// A fast-mode container for this[kOutHeaders] on Node 20-24 (Node 26 has its
// own). V8 keeps `{ __proto__: null }` literals in dictionary mode; instances
// of a class whose prototype is null are fast-mode objects yet, like the
// literal, have no inherited or enumerable extras, so Node's readers
// (`for…in`, ObjectKeys, `headers[key]`) see the same thing.

const { isPlainHeader } = require('./http-rules');

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

// setHeader with the common case inline: a valid token name and a string
// (strictly valid) or number value is stored exactly as Node stores it;
// everything else, errors included, goes through Node's own setHeader.
function makeSetHeader(adapter, original) {
  const { kOutHeaders } = adapter;
  const slow = makeContainerCreator(adapter, original);
  return function setHeader(name, value) {
    if (this._header || !isPlainHeader(name, value)) return slow.call(this, name, value);
    let headers = this[kOutHeaders];
    if (headers === null) this[kOutHeaders] = headers = new OutgoingHeaders();
    headers[name.toLowerCase()] = [name, value];
    return this;
  };
}

module.exports = { OutgoingHeaders, makeContainerCreator, makeSetHeader };
