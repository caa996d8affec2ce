'use strict';
// The callback that finishes a response once its last write is done: a copy
// of each release line's internal onFinish (not reachable from userland).

const { Writable } = require('stream');

// Node's ERR_STREAM_DESTROYED class, taken from an error Node itself makes,
// so a finish after a silent socket failure reports the very same error.
let DestroyedError = null;
{
  const probe = new Writable({ write(chunk, enc, cb) { cb(); } });
  probe.destroy();
  probe.write('x', (err) => { DestroyedError = err.constructor; });
}

function destroyedError(method) {
  if (DestroyedError !== null) return new DestroyedError(method);
  const err = new Error(`Cannot call ${method} after a stream was destroyed`);
  err.code = 'ERR_STREAM_DESTROYED';
  return err;
}

// Returns finisherFor(res, batched): the callback of the response's last
// write. A 'finish' listener's stack then reads as stock's: where stock's end()
// leaves more than one write in the cork, the stream gathers them into a
// writev whose callback (a function named `callback`) calls onFinish; where it
// makes one write, onFinish is bound and called by the stream directly.
// `adapter.endCallbacks` is how the running Node's end() was seen to finish
// a probe message (adapters.js).
function makeFinisher(adapter) {
  if (adapter.endCallbacks === 'finishListener') {
    // Node 20, 22, 24.0-24.19, 26.0-26.6: 'finish' unless the socket failed;
    // end callbacks are 'finish' listeners.
    const onFinish = function onFinish(res) {
      if (res && res.socket && res.socket._hadError) return;
      res.emit('finish');
    };
    return (res, batched) => (batched ? function callback() { onFinish(res); } : onFinish.bind(undefined, res));
  }

  // 'queued' (Node 24.20+, 26.7+: kEndCallbacks): end callbacks are called
  // before 'finish', with null or with the error that kept the data from
  // being flushed.
  const { kSocket, kErrored, kFlushError, kWritableFinished, kEndCallbacks } = adapter;
  const flushEndCallbacks = (res, err) => {
    const callbacks = res[kEndCallbacks];
    if (callbacks === null) return;
    res[kEndCallbacks] = null;
    for (let i = 0; i < callbacks.length; i++) callbacks[i](err);
  };
  const onFinish = function onFinish(res, err) {
    const socket = res[kSocket];
    if (err || res[kErrored] || socket?.errored || socket?._hadError) {
      res[kFlushError] = err ?? res[kErrored] ?? socket?.errored ?? destroyedError('end');
      flushEndCallbacks(res, res[kFlushError]);
      return;
    }
    res[kWritableFinished] = true;
    flushEndCallbacks(res, null);
    res.emit('finish');
  };
  return (res, batched) => (batched ? function callback(err) { onFinish(res, err); } : onFinish.bind(undefined, res));
}

module.exports = { makeFinisher, destroyedError };
