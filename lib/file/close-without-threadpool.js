'use strict';
// Closing a sent file without the libuv threadpool. A ReadStream closes its
// file with fs.close(fd, cb), which costs a threadpool round trip: the main
// thread wakes a worker, the worker closes and wakes the loop back, about four
// context switches per file, as much as ~60 µs of a 1 MiB response served
// from one core. close(2) of a regular file that was only read waits on no
// disk (on NFS it is a close RPC; sendfile already reads uncached pages on the
// loop thread: README, known differences), so the file path closes it at once
// with fs.closeSync (with its errors) and runs the callback where the
// threadpool's completion would run at the earliest: in the next poll phase
// of the loop, in its own callback scope, in the async context of the close
// call (src/file_send/poll_turn.rs).
//
// Only streams whose fs is Node's own fs, with Node's own fs.close, get this
// (a replaced fs.close, e.g. by a file-descriptor pool, sees every close).

const fs = require('fs');
const { AsyncResource } = require('async_hooks');

const nodeClose = fs.close;

let addon = null;
let closingFs; // undefined: not asked yet; null: unavailable
// [resource, callback, error, poll count] per close, in order; `head` is
// the next to run, `turnCount` the loop's poll count in the current turn.
const queue = [];
let head = 0;
let turnCount = 0;

function close(fd, callback) {
  let error = null;
  try {
    fs.closeSync(fd);
  } catch (err) {
    error = err;
  }
  queue.push(new AsyncResource('HttpFastpathClose'), callback, error, addon.schedulePollTurn());
}

// Called by the addon in a poll phase, first with the loop's poll count, then
// with -1 while it returns > 0. Runs the closes queued before this poll
// phase; what was queued during it waits for the next turn (scheduled), and
// an empty queue stops keeping the loop alive (here, before the callback's
// nextTicks can queue another close).
function pollTurn(count) {
  if (count >= 0) turnCount = count;
  if (head < queue.length && queue[head + 3] < turnCount) {
    const resource = queue[head];
    const callback = queue[head + 1];
    const error = queue[head + 2];
    queue[head] = queue[head + 1] = queue[head + 2] = undefined;
    head += 4;
    resource.runInAsyncScope(callback, null, error);
  }
  if (head < queue.length) {
    if (queue[head + 3] < turnCount) return 1;
    addon.schedulePollTurn();
    return 0;
  }
  queue.length = 0;
  head = 0;
  addon.endPollTurns();
  return -1;
}

// The fs a finished stream closes its file through, or null to keep Node's.
function fsForClose(stream, kFs, native) {
  if (stream[kFs] !== fs || fs.close !== nodeClose) return null;
  if (closingFs === undefined) {
    addon = native;
    closingFs = native.setPollTurnCallback(pollTurn) ? { __proto__: fs, close } : null;
  }
  return closingFs;
}

module.exports = { fsForClose };
