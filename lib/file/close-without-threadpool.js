'use strict';
// Closing a sent file without the libuv threadpool. A ReadStream closes its
// file with fs.close(fd, cb), which costs a threadpool round trip: the main
// thread wakes a worker, the worker closes and wakes the loop back, about four
// context switches per file, as much as ~60 µs of a 1 MiB response served
// from one core. close(2) of a regular file that was only read waits on no
// disk (on NFS it is a close RPC; sendfile already reads uncached pages on the
// loop thread: docs/known-differences.md), so the file path closes it at once
// with fs.closeSync (with its errors) and runs the callback where the
// threadpool's completion would run at the earliest: in the next poll phase
// of the loop, in its own callback scope, in the async context of the close
// call (lib/loop/next-poll.js).
//
// Only streams whose fs is Node's own fs, with Node's own fs.close, get this
// (a replaced fs.close, e.g. by a file-descriptor pool, sees every close).

const fs = require('fs');
const { AsyncResource } = require('async_hooks');
const nextPoll = require('../loop/next-poll');

const nodeClose = fs.close;

let closingFs; // undefined: not asked yet; null: unavailable

function close(fd, callback) {
  let error = null;
  try {
    fs.closeSync(fd);
  } catch (err) {
    error = err;
  }
  nextPoll.deliver(new AsyncResource('HttpFastpathClose'), callback, null, [error]);
}

// The fs a finished stream closes its file through, or null to keep Node's.
function fsForClose(stream, kFs, native) {
  if (stream[kFs] !== fs || fs.close !== nodeClose) return null;
  if (closingFs === undefined) closingFs = nextPoll.available(native) ? { __proto__: fs, close } : null;
  return closingFs;
}

module.exports = { fsForClose };
