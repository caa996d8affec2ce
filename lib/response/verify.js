'use strict';
// HTTP_FASTPATH=verify: for running in a canary before trusting the fast
// path. Every head is rendered both ways — the fast renderer first, then
// Node's own _storeHeader from the same starting state — and Node's result
// is the one kept and written. A difference in the head text or in any field
// the render sets is reported once per distinct case with
// process.emitWarning (type HttpFastpathVerifyWarning). The end() and
// setHeader fast paths are not installed in this mode, so every byte written
// is stock.

const FIELDS = ['_header', '_headerSent', 'chunkedEncoding', 'shouldKeepAlive', '_last', '_removedConnection',
  '_removedTE', '_removedContLen', '_contentLength', '_defaultKeepAlive'];
const DATE = /\r\nDate: [^\r]*\r\n/;

function capture(msg) {
  const out = {};
  for (const f of FIELDS) out[f] = msg[f];
  return out;
}

function restore(msg, saved) {
  for (const f of FIELDS) msg[f] = saved[f];
}

function comparable(state) {
  return { ...state, _header: typeof state._header === 'string' ? state._header.replace(DATE, '\r\nDate: <date>\r\n') : state._header };
}

function makeVerifyingStoreHeader(render, original, { onDifference = defaultReport } = {}) {
  const reported = new Set();
  let checked = 0;
  const storeHeader = function _storeHeader(firstLine, headers) {
    const before = capture(this);
    if (!render(this, firstLine, headers)) return original.call(this, firstLine, headers);
    const fast = comparable(capture(this));
    restore(this, before);
    const result = original.call(this, firstLine, headers);
    const stock = comparable(capture(this));
    checked++;
    const diff = FIELDS.filter((f) => fast[f] !== stock[f] && !(Number.isNaN(fast[f]) && Number.isNaN(stock[f])));
    if (diff.length) {
      const key = firstLine + '|' + diff.join(',') + '|' + Object.keys(headers || {}).join(',');
      if (!reported.has(key)) {
        reported.add(key);
        onDifference({ firstLine, fields: diff, fast: pick(fast, diff), stock: pick(stock, diff) });
      }
    }
    return result;
  };
  storeHeader.stats = () => ({ checked, differences: reported.size });
  return storeHeader;
}

function pick(obj, keys) {
  const out = {};
  for (const k of keys) out[k] = obj[k];
  return out;
}

function defaultReport(d) {
  process.emitWarning(`http-fastpath verify: fast render differs from Node in ${d.fields.join(', ')}: ` +
    JSON.stringify({ firstLine: d.firstLine, fast: d.fast, stock: d.stock }), { type: 'HttpFastpathVerifyWarning' });
}

module.exports = { makeVerifyingStoreHeader };
