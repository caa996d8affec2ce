'use strict';
// A fast-mode container for this[kOutHeaders] where Node's own store is a
// null-prototype literal (Node 20-24 and 26.0-26.10; 26.12.1 has its own
// container class: adapter.headerStore, read from Node by adapters.js). V8
// keeps `{ __proto__: null }` literals in dictionary mode; instances
// of a class whose prototype is null are fast-mode objects yet, like the
// literal, have no inherited or enumerable extras, so Node's readers
// (`for…in`, ObjectKeys, `headers[key]`) see the same thing.

const { isPlainValue, tokenKey, headerKey } = require('./http-rules');

class OutgoingHeaders {}
Object.setPrototypeOf(OutgoingHeaders.prototype, null);
delete OutgoingHeaders.prototype.constructor;

// Node 20-26.10 create the store as a `{ __proto__: null }` literal inside
// setHeader (appendHeader with no store calls this.setHeader). After Node's
// method made one, its entries move into a container. Node validates before
// it creates the store, so a throw leaves it null, as stock does; and the
// package adds one frame, named as Node's method, under Node's in a stack.
function adoptStore(res, kOutHeaders) {
  const headers = res[kOutHeaders];
  if (headers === null || Object.getPrototypeOf(headers) !== null) return;
  const container = new OutgoingHeaders();
  for (const key in headers) container[key] = headers[key];
  res[kOutHeaders] = container;
}

function makeContainerCreator(adapter, original) {
  const { kOutHeaders } = adapter;
  return {
    [original.name](name, value) {
      if (this[kOutHeaders] !== null) return original.call(this, name, value);
      const result = original.call(this, name, value);
      adoptStore(this, kOutHeaders);
      return result;
    },
  }[original.name];
}

// setHeader with the common case inline: a valid token name and a string
// (strictly valid) or number value is stored exactly as Node stores it;
// everything else, errors included, goes through Node's own setHeader. Where
// Node's store is its own fast-mode class, Node's setHeader creates the store
// and the inline path starts with the second header.
function makeSetHeader(adapter, original) {
  const { kOutHeaders } = adapter;
  const ownStore = adapter.headerStore === 'literal';
  return function setHeader(name, value) {
    const key = typeof name === 'string' && !this._header ? tokenKey(name) : undefined;
    let headers = this[kOutHeaders];
    if (key === undefined || !isPlainValue(value)) {
      const result = original.call(this, name, value);
      if (ownStore && headers === null) adoptStore(this, kOutHeaders);
      return result;
    }
    if (headers === null) {
      if (!ownStore) return original.call(this, name, value);
      this[kOutHeaders] = headers = new OutgoingHeaders();
    }
    headers[key] = [name, value];
    return this;
  };
}

// Node's getHeader with the name's lowercase form kept (http-rules.js); a
// name that is not a string gets Node's own error.
function makeGetHeader(adapter, original) {
  const { kOutHeaders } = adapter;
  return function getHeader(name) {
    if (typeof name !== 'string') return original.call(this, name);
    const headers = this[kOutHeaders];
    if (headers === null) return undefined;
    const entry = headers[headerKey(name)];
    return entry?.[1]; // entries are always arrays: Node 20's `entry && entry[1]` too
  };
}

// removeHeader that keeps the store a fast-mode object. V8 turns an object
// into a hash table when a property other than the last one added is deleted:
// helmet removes the X-Powered-By that express set first, compression the
// Content-Length, so the store of such a response became a dictionary (a
// table allocated per response, slower reads, and a key array allocated for
// every for-in). A key that is present goes by copying the other entries, in
// their order, into a new container; Node's own removeHeader then validates,
// sets its flags and deletes a key that is no longer there.
function makeRemoveHeader(adapter, original) {
  const { kOutHeaders } = adapter;
  return function removeHeader(name) {
    const headers = typeof name === 'string' && !this._header ? this[kOutHeaders] : null;
    if (headers != null) {
      const key = headerKey(name);
      if (headers[key] !== undefined) this[kOutHeaders] = copyWithout(headers, key);
    }
    return original.call(this, name);
  };
}

function copyWithout(headers, key) {
  const proto = Object.getPrototypeOf(headers);
  if (proto === null) return headers; // a null-prototype literal: a hash table already
  const copy = proto === OutgoingHeaders.prototype ? new OutgoingHeaders() : Object.create(proto);
  for (const k in headers) if (k !== key) copy[k] = headers[k];
  return copy;
}

module.exports = { OutgoingHeaders, makeContainerCreator, makeSetHeader, makeGetHeader, makeRemoveHeader };
