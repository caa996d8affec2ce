'use strict';
// The native file path: `fs.ReadStream#pipe(res)` into an HTTP/1 response on
// a plain TCP socket sends the file with sendfile(2) from the Rust addon
// (src/file_send) instead of reading it into Buffers and writing each one.
//
// How it stays stock: pipe() itself is Node's (same listeners, 'pipe',
// 'resume', 'unpipe', dest.end() on 'end'). Only the stream's first _read is
// replaced: at that point (the file is open, the stream is flowing into this
// response and nothing else) the head is rendered exactly where the first
// res.write would render it (res._implicitHeader(), so wrapped writeHeads
// run), then the head and the file range go to the socket natively, and
// the stream is ended with push(null) as Node's _read does at end of file.
// So the stream still emits 'open', 'ready', 'end', 'close' and the response
// 'finish', 'close', in the same order. What no longer happens is the
// per-chunk 'data'/'pause'/'drain' traffic between them, which nothing else
// listens to (checked) and whose count depends on timing anyway.
//
// Every condition below is re-checked when the transfer starts; anything not
// proven to behave the same takes Node's own _read for that response, counted
// by reason in status().files.

const fs = require('fs');
const http = require('http');
const { AsyncResource } = require('async_hooks');
const net = require('net');
const { getSystemErrorName } = require('util');
const { fsForClose } = require('./close-without-threadpool');
const { symbolsOf } = require('../response/adapters');

const { OutgoingMessage, ServerResponse } = http;
const ReadStream = fs.ReadStream;
const stockRead = ReadStream.prototype._read;
const stockDestroy = ReadStream.prototype._destroy;
const socketBytesDispatched = Object.getOwnPropertyDescriptor(net.Socket.prototype, '_bytesDispatched');

// prepareSendFile's refusals (Node's own reads take over).
const REFUSALS = { 22: 'emptyOrSpecialFile', 34: 'lengthMismatch', 107: 'socketError' }; // EINVAL, ERANGE, ENOTCONN
// sendFile's out[2]: how a transfer stopped short.
const COULD_NOT_WAIT = 1;
const FILE_UNREAD = 2;

// The Content-Length the response will announce, or -1.
function announcedLength(res) {
  if (res._header) return typeof res._contentLength === 'number' ? res._contentLength : -1;
  const value = Number(res.getHeader('content-length'));
  return Number.isSafeInteger(value) && value >= 0 ? value : -1;
}

const kResponse = Symbol('http-fastpath.fileResponse');
const kTransfer = Symbol('http-fastpath.fileTransfer');
const kNativeBytes = Symbol('http-fastpath.nativeBytesWritten');
const EMPTY = Buffer.alloc(0);
const out = new Float64Array(4);

const counts = { native: 0, waited: 0, handedBack: { __proto__: null }, stock: { __proto__: null } };

function bump(byReason, reason) {
  byReason[reason] = (byReason[reason] || 0) + 1;
}

function stock(reason) {
  bump(counts.stock, reason);
}

let kFs; // ReadStream's own symbol for its fs implementation (options.fs)
function usesNodeFs(src) {
  if (kFs === undefined) kFs = symbolsOf(src).kFs || null;
  return kFs !== null && src[kFs] === fs;
}

let TCP; // the TCP handle class, learnt from the first socket that has one
function isTcpHandle(handle) {
  if (TCP === undefined && handle.constructor && handle.constructor.name === 'TCP') TCP = handle.constructor;
  return TCP !== undefined && handle instanceof TCP;
}

// The replacement for ReadStream.prototype.pipe. `sender()` returns the
// addon when it can send files, else null (asked on the first response that
// qualifies, so a preload still loads no .node); `own` holds the response
// methods of a stock response.
function makeFilePipe(originalPipe, sender, own) {
  // The response methods a stream's bytes pass through in stock Node (with
  // this package's end): an app or middleware that replaced one of them on a
  // response (compression) must see the bytes, so that response stays stock.
  const { write, end, implicitHeader, send, writeRaw } = own;

  function responseIsStock(res) {
    return res.write === write && res.end === end && res._implicitHeader === implicitHeader &&
      res._send === send && res._writeRaw === writeRaw;
  }

  // Checks that need no socket, made when pipe() is called.
  function pipeRefusal(src, res) {
    const state = src._readableState;
    if (src.listenerCount('data') !== 0 || src.listenerCount('readable') !== 0 || state.pipes.length !== 0) return 'otherConsumer';
    if (state.objectMode || state.decoder !== null || state.flowing !== null ||
        state.length !== 0 || state.ended || state.destroyed || state.errored) return 'streamState';
    if (src._read !== stockRead || src._destroy !== stockDestroy || !usesNodeFs(src)) return 'customStream';
    if (src.bytesRead !== 0) return 'streamState';
    if (!responseIsStock(res)) return 'replacedResponseMethods';
    return headRefusal(src, res);
  }

  // The response must be framed by Content-Length, so its body is exactly the
  // file bytes (chunked framing would need the chunk sizes Node would write).
  function headRefusal(src, res) {
    if (res.destroyed || res.finished) return 'responseClosed';
    if (!res._hasBody) return 'noBody';
    if (res.strictContentLength) return 'strictContentLength';
    if (res._header) return res.chunkedEncoding ? 'chunked' : null;
    if (!res.hasHeader('content-length') || res.hasHeader('transfer-encoding')) return 'chunked';
    const start = src.start === undefined ? 0 : src.start;
    if (src.end !== Infinity && announcedLength(res) !== src.end - start + 1) return 'lengthMismatch';
    return null;
  }

  // Checks made when the transfer starts: the socket is this response's, and
  // Node has nothing queued for it, so the native bytes come next on the wire.
  function socketRefusal(res) {
    const socket = res.socket;
    if (!socket || socket._httpMessage !== res) return 'notOnSocket';
    if (socket.encrypted) return 'tls';
    const handle = socket._handle;
    if (!handle || !isTcpHandle(handle) || !(handle.fd >= 0)) return 'notTcp';
    if (socket.destroyed || !socket.writable || socket.connecting) return 'socketState';
    if (socket.writableLength !== 0 || handle.writeQueueSize !== 0 || socket.writableCorked !== 0 ||
        res.outputData.length !== 0 || res.writableCorked !== 0) return 'pendingWrites';
    return null;
  }

  function pipe(dest, options) {
    if (dest instanceof ServerResponse && this instanceof ReadStream && this[kResponse] === undefined) {
      const why = pipeRefusal(this, dest);
      if (why === null) {
        this[kResponse] = dest;
        this._read = nativeRead;
      } else {
        stock(why);
      }
    }
    return originalPipe.apply(this, arguments);
  }

  function fallBack(src, n, reason) {
    stock(reason);
    src._read = stockRead;
    return stockRead.call(src, n);
  }

  // Replaces the stream's first _read: Node calls it once the file is open
  // and the stream flows.
  function nativeRead(n) {
    const res = this[kResponse];
    const state = this._readableState;
    if (state.pipes.length !== 1 || state.pipes[0] !== res || this.listenerCount('data') !== 1 ||
        this.listenerCount('readable') !== 0 || state.length !== 0 || state.decoder !== null || this.bytesRead !== 0) {
      return fallBack(this, n, 'otherConsumer');
    }
    if (!responseIsStock(res)) return fallBack(this, n, 'replacedResponseMethods');
    const headWhy = headRefusal(this, res);
    if (headWhy !== null) return fallBack(this, n, headWhy);
    const socketWhy = socketRefusal(res);
    if (socketWhy !== null) return fallBack(this, n, socketWhy);
    const length = this.pos !== undefined ? this.end - this.pos + 1 : this.end - this.bytesRead + 1;
    if (!(length > 0)) return fallBack(this, n, 'emptyRange');
    const addon = sender();
    if (addon === null) return fallBack(this, n, 'noNative');
    const socket = res.socket;
    const sockFd = socket._handle.fd;
    const fileFd = this.fd;
    // The file is checked (regular, its size, the announced length) before
    // anything about the response changes.
    const refused = addon.prepareSendFile(sockFd, fileFd, this.pos === undefined ? -1 : this.pos,
      length === Infinity ? -1 : length, announcedLength(res));
    if (refused !== 0) return fallBack(this, n, REFUSALS[-refused] || 'nativeError');

    // Where stock renders the head: the first res.write of the pipe.
    if (!res._header) {
      try {
        res._implicitHeader();
      } catch {
        // Stock throws this from its first res.write: let it.
        addon.discardSendFile();
        return fallBack(this, n, 'headError');
      }
      if (!res._hasBody || res.chunkedEncoding) {
        addon.discardSendFile();
        return fallBack(this, n, res._hasBody ? 'chunked' : 'noBody');
      }
      // The native side writes and reads these descriptors during sendFile:
      // a writeHead wrapper must not have closed either.
      if (this.destroyed || this.fd !== fileFd || socket.destroyed || !socket._handle || socket._handle.fd !== sockFd ||
          res.socket !== socket || socket.writableLength !== 0) {
        addon.discardSendFile();
        return fallBack(this, n, 'changedByWriteHead');
      }
    }
    const head = res._headerSent ? EMPTY : Buffer.from(res._header, 'latin1');
    res._headerSent = true;
    const transfer = { src: this, res, socket, addon, id: 0, socketBytes: 0, fileBytes: 0, onClose: null, resource: null };
    const rc = addon.sendFile(head, out,
      (status, socketBytes, fileBytes) => transfer.resource.runInAsyncScope(progress, null, transfer, status, socketBytes, fileBytes));
    if (out[2] === FILE_UNREAD) {
      // Nothing went out: Node's own read meets the same error.
      res._headerSent = false;
      return fallBack(this, n, 'nativeError');
    }
    counts.native++;
    account(transfer, out[0], out[1]);
    if (out[2] === COULD_NOT_WAIT) {
      handBack(transfer, -rc, head.subarray(head.length - out[3]));
      return stockRead.call(this, n);
    }
    if (rc === 0) {
      finish(transfer);
    } else if (rc > 0) {
      counts.waited++;
      transfer.id = rc;
      // Later progress runs in this read's async context, as the callback of
      // Node's fs.read would (AsyncLocalStorage, async_hooks).
      transfer.resource = new AsyncResource('HttpFastpathSendFile');
      transfer.onClose = () => abort(transfer, addon);
      socket.once('close', transfer.onClose);
      this._destroy = destroyDuringTransfer;
      this[kTransfer] = transfer;
    } else {
      // The socket's error, met by the native write, as Node's write would
      // (a pending reset is seen before the head: prepareSendFile).
      fail(transfer, -rc);
    }
  }

  function destroyDuringTransfer(err, cb) {
    const transfer = this[kTransfer];
    if (transfer !== undefined && transfer.id !== 0) abort(transfer, sender());
    return stockDestroy.call(this, err, cb);
  }

  return pipe;
}

// native: responses sent natively (waited: of which some waited for the
// socket to drain); stock: responses left to Node, by reason.
// handedBack: of the native ones, those that could not wait for the socket
// (no descriptor to spare...) and went on with Node's own reads, by errno.
function snapshot() {
  return { native: counts.native, waited: counts.waited, handedBack: { ...counts.handedBack }, stock: { ...counts.stock } };
}

// Counts the native bytes where Node counts written and read bytes: the
// socket's bytesWritten (its handle never saw them) and the stream's
// bytesRead/pos, and refreshes the socket's idle timeout as a write would.
function account(transfer, socketBytes, fileBytes) {
  const { socket, src } = transfer;
  const sent = socketBytes - transfer.socketBytes;
  const read = fileBytes - transfer.fileBytes;
  transfer.socketBytes = socketBytes;
  transfer.fileBytes = fileBytes;
  if (sent > 0) {
    if (socket[kNativeBytes] === undefined) {
      socket[kNativeBytes] = 0;
      Object.defineProperty(socket, '_bytesDispatched', {
        configurable: true, enumerable: false,
        get() { return socketBytesDispatched.get.call(this) + this[kNativeBytes]; },
      });
    }
    socket[kNativeBytes] += sent;
    socket._unrefTimer();
  }
  if (read > 0) {
    src.bytesRead += read;
    if (src.pos !== undefined) src.pos += read;
  }
}

function settle(transfer) {
  const { src, socket } = transfer;
  if (transfer.onClose !== null) socket.removeListener('close', transfer.onClose);
  transfer.id = 0;
  src._read = stockRead;
  if (Object.prototype.hasOwnProperty.call(src, '_destroy')) src._destroy = stockDestroy;
}

// The whole range is on the socket: end the stream as Node's _read does at
// end of file (push(null): 'end', then pipe's res.end(), then 'close'). Its
// file is then closed without a threadpool round trip.
function finish(transfer) {
  settle(transfer);
  const { src } = transfer;
  if (src.destroyed) return;
  const closing = fsForClose(src, kFs, transfer.addon);
  if (closing !== null) src[kFs] = closing;
  src.push(null);
}

// The transfer could not wait for the socket (errno says why): what it did
// not send is left to Node, from where it stopped. The part of the head the
// socket did not take goes first; then the stream reads on from its
// position (bytesRead and pos already count what was sent) and pipe() writes
// each chunk to the response, whose head counts as sent.
function handBack(transfer, errno, headLeft) {
  bump(counts.handedBack, getSystemErrorName(-errno));
  settle(transfer);
  if (headLeft.length !== 0) transfer.socket.write(headLeft);
}

// A failed socket write: the socket is destroyed with the error, as Node
// does when a write fails; the stream is left to its owner, as in stock.
function fail(transfer, errno) {
  settle(transfer);
  const { socket } = transfer;
  if (!socket.destroyed) {
    const name = getSystemErrorName(-errno);
    const err = new Error(`write ${name}`);
    err.errno = -errno;
    err.code = name;
    err.syscall = 'write';
    socket.destroy(err);
  }
}

// status: 1 progress, 0 done, -errno failed, SOCKET_ERROR the socket has an
// error pending. Stock's read meets that error first when the socket is
// reading ('read ECONNRESET'): then the native side leaves it to Node's
// handle (true) and the socket's close aborts the transfer.
const SOCKET_ERROR = 2;

function progress(transfer, status, socketBytes, fileBytes) {
  if (status === SOCKET_ERROR) {
    const handle = transfer.socket._handle;
    return handle != null && handle.reading === true;
  }
  account(transfer, socketBytes, fileBytes);
  if (status === 0) finish(transfer);
  else if (status < 0) fail(transfer, -status);
  return false;
}

// The socket closed or the stream was destroyed mid-file: stop sending, as
// stock stops writing; nothing else changes.
function abort(transfer, addon) {
  if (transfer.id === 0) return;
  addon.abortSendFile(transfer.id);
  settle(transfer);
}

module.exports = { makeFilePipe, snapshot };
