'use strict';
// Counts the complete HTTP/1 responses in the bytes a client receives, so a
// keep-alive client can send its next request once the last answer is in
// (test/helpers/file-differential.js, `oneByOne`). Bodies are counted, never
// kept: Content-Length, chunked (its last chunk), and the bodiless statuses.
// A response with neither length nor chunking ends with the connection and
// is never complete here.

const END_OF_CHUNKED = Buffer.from('\r\n0\r\n\r\n', 'latin1');

class ResponseCounter {
  constructor() {
    this.complete = 0;
    this.head = Buffer.alloc(0); // the current response's head, while it arrives
    this.bodyLeft = null; // bytes of a Content-Length body still to come; null before the head
    this.chunkedTail = null; // the last bytes of a chunked body, to find its end
  }

  // Returns how many responses are complete after `chunk`.
  push(chunk) {
    let data = chunk;
    while (data.length > 0) {
      if (this.bodyLeft === null && this.chunkedTail === null) data = this.readHead(data);
      else if (this.chunkedTail !== null) data = this.readChunked(data);
      else data = this.readBody(data);
    }
    return this.complete;
  }

  readHead(data) {
    this.head = Buffer.concat([this.head, data]);
    const end = this.head.indexOf('\r\n\r\n');
    if (end === -1) return Buffer.alloc(0);
    const head = this.head.toString('latin1', 0, end);
    const rest = this.head.subarray(end + 4);
    this.head = Buffer.alloc(0);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (/^HTTP\/1\.[01] (1\d\d|204|304) /.test(head)) this.bodyLeft = 0;
    else if (length) this.bodyLeft = Number(length[1]);
    else if (/\r\ntransfer-encoding: *chunked/i.test(head)) this.chunkedTail = Buffer.from('\r\n', 'latin1');
    else this.bodyLeft = Infinity;
    if (this.bodyLeft === 0) this.finishOne();
    return rest;
  }

  readBody(data) {
    const taken = Math.min(this.bodyLeft, data.length);
    this.bodyLeft -= taken;
    if (this.bodyLeft === 0) this.finishOne();
    return data.subarray(taken);
  }

  // The body's first chunk-size line follows the head's CRLF CRLF, so the
  // tail starts as CRLF and the end is found as CRLF 0 CRLF CRLF.
  readChunked(data) {
    const window = Buffer.concat([this.chunkedTail, data]);
    const end = window.indexOf(END_OF_CHUNKED);
    if (end === -1) {
      this.chunkedTail = window.subarray(Math.max(0, window.length - END_OF_CHUNKED.length + 1));
      return Buffer.alloc(0);
    }
    const consumed = end + END_OF_CHUNKED.length - this.chunkedTail.length;
    this.chunkedTail = null;
    this.finishOne();
    return data.subarray(consumed);
  }

  finishOne() {
    this.complete++;
    this.bodyLeft = null;
  }
}

module.exports = { ResponseCounter };
