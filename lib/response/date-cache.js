'use strict';
// The Date header value, cached per second like Node's own utcDate(): built
// on first use, cleared by an unref'd timer at the next second boundary.

let cached = '';

function clear() {
  cached = '';
}

function dateHeaderLine() {
  if (cached === '') {
    const now = new Date();
    cached = 'Date: ' + now.toUTCString() + '\r\n';
    setTimeout(clear, 1000 - now.getMilliseconds()).unref();
  }
  return cached;
}

module.exports = { dateHeaderLine };
