'use strict';
// Loop-thread jobs whose completions land where a threadpool completion
// would: work done at once on the loop thread (a sent file's close, a small
// codec job) has its callback run in a later poll phase of the loop than the
// one that queued it, in the async context of the resource given, one
// callback scope each (src/file_send/poll_turn.rs). The same queue serves
// every such job, in the order they were queued; while it holds any, the
// loop stays alive, as it does for pending threadpool work.

let addon = null;
let ready; // undefined: not asked yet; then whether the addon can deliver
// [resource, fn, receiver, args, poll count] per job, in order; `head` is the
// next to run, `turnCount` the loop's poll count in the current turn.
const STRIDE = 5;
const queue = [];
let head = 0;
let turnCount = 0;

// Whether jobs can be delivered (asks the addon once).
function available(native) {
  if (ready === undefined) {
    addon = native;
    ready = native !== null && typeof native.setPollTurnCallback === 'function' && native.setPollTurnCallback(pollTurn);
  }
  return ready;
}

// Runs fn.apply(receiver, args) in resource's async scope in a later poll
// phase. Only after available() said true.
function deliver(resource, fn, receiver, args) {
  queue.push(resource, fn, receiver, args, addon.schedulePollTurn());
}

// Called by the addon in a poll phase, first with the loop's poll count, then
// with -1 while it returns > 0. Runs the jobs queued before this poll phase;
// what was queued during it waits for the next turn (scheduled), and an
// empty queue stops keeping the loop alive (here, before a callback's
// nextTicks can queue another job).
function pollTurn(count) {
  if (count >= 0) turnCount = count;
  if (head < queue.length && queue[head + 4] < turnCount) {
    const resource = queue[head];
    const fn = queue[head + 1];
    const receiver = queue[head + 2];
    const args = queue[head + 3];
    queue[head] = queue[head + 1] = queue[head + 2] = queue[head + 3] = undefined;
    head += STRIDE;
    resource.runInAsyncScope(fn, receiver, ...args);
  }
  if (head < queue.length) {
    if (queue[head + 4] < turnCount) return 1;
    addon.schedulePollTurn();
    return 0;
  }
  queue.length = 0;
  head = 0;
  addon.endPollTurns();
  return -1;
}

module.exports = { available, deliver };
