'use strict';
// The server scenarios the differential tests run. `fast` names the stats
// counter the patched run must hit (the fast path, or the fallback reason),
// so a fast path that silently stops being taken fails a test.

const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
const HEAD = 'HEAD / HTTP/1.1\r\nHost: x\r\n\r\n';
const later = (fn) => setTimeout(fn, 5);

function headers(n) {
  return (req, res) => {
    for (let i = 0; i < n; i++) res.setHeader(`X-Header-${i}`, `value-${i}`);
    res.end('ok');
  };
}

const scenarios = [
  // end() shapes
  { name: 'end() with no body', fast: 'end.fast', handler: (req, res) => res.end() },
  { name: 'end(string)', fast: 'end.fast', handler: (req, res) => res.end('hello') },
  { name: "end('') empty string", fast: 'end.fast', handler: (req, res) => res.end('') },
  { name: 'end(Buffer)', fast: 'end.fast', handler: (req, res) => res.end(Buffer.from('hi there')) },
  { name: 'end(Uint8Array)', fast: 'end.fast', handler: (req, res) => res.end(new Uint8Array([104, 105])) },
  { name: 'end(empty Buffer)', fast: 'end.fast', handler: (req, res) => res.end(Buffer.alloc(0)) },
  { name: 'end(unicode string)', fast: 'end.fast', handler: (req, res) => res.end('héllo wörld ✓ 😀') },
  { name: "end(string, 'latin1')", fast: 'end.fast', handler: (req, res) => res.end('héllo', 'latin1') },
  { name: "end(string, 'utf8')", fast: 'end.fast', handler: (req, res) => res.end('héllo', 'utf8') },
  { name: "end(string, 'hex') falls back", fast: 'end.fallback.encoding', handler: (req, res) => res.end('68656c6c6f', 'hex') },
  { name: "end(string, 'utf-8') falls back", fast: 'end.fallback.encoding', handler: (req, res) => { res.setHeader('X-E', 'é'); res.end('é', 'utf-8'); } },
  { name: "end(string, 'ascii') falls back", fast: 'end.fallback.encoding', handler: (req, res) => res.end('abc', 'ascii') },
  { name: "end(string, 'base64') falls back", fast: 'end.fallback.encoding', handler: (req, res) => res.end('aGVsbG8=', 'base64') },
  { name: 'end(Buffer, bogus encoding) throws like stock', fast: 'end.fallback.encoding', handler: (req, res, t) => { res.on('error', () => {}); t.try('end', () => res.end(Buffer.from('hi'), 'bogus')); t.snapshot('after', res); res.end('x'); } },
  { name: "end(Buffer, 'ascii')", fast: 'end.fallback.encoding', handler: (req, res) => res.end(Buffer.from('hi'), 'ascii') },
  { name: 'end(string, callback)', fast: 'end.fallback.callback', handler: (req, res, t) => res.end('x', (...a) => t.log('cb', a.map(String))) },
  { name: 'end(callback)', fast: 'end.fallback.callback', handler: (req, res, t) => res.end((...a) => t.log('cb', a.map(String))) },
  { name: 'end(string, encoding, callback)', fast: 'end.fallback.callback', handler: (req, res, t) => res.end('x', 'utf8', (...a) => t.log('cb', a.map(String))) },
  { name: 'end(0) is an empty end', fast: 'end.fast', handler: (req, res) => res.end(0) },
  { name: 'end(null, null, null)', fast: 'end.fast', handler: (req, res) => res.end(null, null, null) },
  { name: 'end(object) throws like stock', handler: (req, res, t) => { t.try('end({})', () => res.end({ a: 1 })); res.end('after'); } },
  { name: 'large string body (1 MiB)', fast: 'end.fast', handler: (req, res) => res.end('x'.repeat(1 << 20)) },
  { name: 'large Buffer body (1 MiB)', fast: 'end.fast', handler: (req, res) => res.end(Buffer.alloc(1 << 20, 7)) },

  // setHeader combinations
  { name: 'Content-Type + end(body)', fast: 'end.fast', handler: (req, res) => { res.setHeader('Content-Type', 'text/plain'); res.end('Hello World'); } },
  { name: '5 headers', fast: 'end.fast', handler: headers(5) },
  { name: '30 headers', fast: 'end.fast', handler: headers(30) },
  { name: 'numeric header value', fast: 'end.fast', handler: (req, res) => { res.setHeader('X-Num', 42); res.setHeader('X-Float', 1.5); res.end('n'); } },
  { name: 'boolean header value', handler: (req, res) => { res.setHeader('X-Bool', true); res.end('b'); } },
  { name: 'array header value', fast: 'end.fast', handler: (req, res) => { res.setHeader('X-Arr', ['a', 'b', 3]); res.end('a'); } },
  { name: 'empty array header value', fast: 'end.fast', handler: (req, res) => { res.setHeader('X-Empty', []); res.end('e'); } },
  { name: 'Set-Cookie array', fast: 'end.fast', handler: (req, res) => { res.setHeader('Set-Cookie', ['a=1; Path=/', 'b=2']); res.end('c'); } },
  { name: 'Cookie array is joined (falls back)', fast: 'storeHeader.special', handler: (req, res) => { res.setHeader('Cookie', ['a=1', 'b=2']); res.end('c'); } },
  { name: 'Cookie single-element array', fast: 'end.fast', handler: (req, res) => { res.setHeader('Cookie', ['a=1']); res.end('c'); } },
  { name: 'latin1 content-disposition with body', fast: 'storeHeader.special', handler: (req, res, t) => { res.setHeader('Content-Disposition', 'attachment; filename="é.txt"'); res.end('data'); t.snapshot('after', res); } },
  { name: 'content-disposition array with body', fast: 'storeHeader.special', handler: (req, res, t) => { res.setHeader('Content-Disposition', ['inline', 'x']); res.end('data'); t.log('value', res.getHeader('content-disposition').map(String)); } },
  { name: 'content-disposition without body', fast: 'end.fast', handler: (req, res) => { res.setHeader('Content-Disposition', 'attachment; filename="é.txt"'); res.end(); } },
  { name: 'integer-like header names', fast: 'end.fast', handler: (req, res) => { res.setHeader('X-A', 'a'); res.setHeader('20', 'b'); res.setHeader('3', 'c'); res.end('i'); } },
  { name: 'setHeader then removeHeader', fast: 'end.fast', handler: (req, res) => { res.setHeader('X-Gone', '1'); res.setHeader('X-Kept', '2'); res.removeHeader('x-gone'); res.end('r'); } },
  { name: 'removeHeader of the first of many (helmet after express)', fast: 'end.fast', handler: (req, res, t) => {
    res.setHeader('X-Powered-By', 'Express');
    for (let i = 0; i < 12; i++) res.setHeader(`X-Sec-${i}`, `v${i}`);
    res.removeHeader('X-Powered-By'); res.removeHeader('x-sec-5'); res.removeHeader('X-Absent');
    t.snapshot('after removals', res); t.log('names', res.getHeaderNames()); t.log('raw', res.getRawHeaderNames());
    res.setHeader('X-Powered-By', 'again'); res.setHeader('X-SEC-5', 'back'); res.end('h'); } },
  { name: 'removeHeader of Content-Length and Date among others', fast: 'end.fast', handler: (req, res) => { res.setHeader('Content-Length', 4); res.setHeader('Date', 'x'); res.setHeader('X-A', 'a'); res.removeHeader('content-length'); res.removeHeader('DATE'); res.setHeader('Content-Length', 1); res.end('r'); } },
  { name: 'removeHeader errors', fast: 'end.fast', handler: (req, res, t) => { res.setHeader('X-A', 'a'); res.setHeader('X-B', 'b'); t.try('number', () => res.removeHeader(5)); t.try('undefined', () => res.removeHeader()); t.try('__proto__', () => res.removeHeader('__proto__')); res.setHeader('__proto__', 'p'); res.setHeader('X-C', 'c'); t.try('__proto__ set', () => res.removeHeader('__proto__')); t.snapshot('left', res); res.end('e'); } },
  { name: 'overwrite with other case keeps position', fast: 'end.fast', handler: (req, res) => { res.setHeader('x-a', '1'); res.setHeader('X-B', '2'); res.setHeader('X-A', '3'); res.end('o'); } },
  { name: 'appendHeader', fast: 'end.fast', handler: (req, res) => { res.appendHeader('X-Multi', 'a'); res.appendHeader('X-Multi', 'b'); res.appendHeader('Set-Cookie', 'c=1'); res.end('m'); } },
  { name: 'header getters after end', fast: 'end.fast', handler: (req, res, t) => { res.setHeader('Content-Type', 'text/html'); res.setHeader('X-Y', ['1', '2']); t.snapshot('before', res); res.end('g'); t.snapshot('after', res); t.log('has', res.hasHeader('content-type')); t.log('get', res.getHeader('X-Y')); } },
  { name: 'header store survives removeHeader of last header', fast: 'end.fallback.chunked', handler: (req, res, t) => { res.setHeader('X', '1'); res.removeHeader('X'); t.snapshot('empty', res); res.writeHead(200, { 'X-Obj': 'v' }); t.snapshot('after writeHead', res); res.end('z'); } },
  { name: 'user Content-Length + end(body)', fast: 'end.fast', handler: (req, res) => { res.setHeader('Content-Length', 5); res.end('hello'); } },
  { name: 'user Content-Length string', fast: 'end.fast', handler: (req, res) => { res.setHeader('Content-Length', '5'); res.end('hello'); } },
  { name: 'user Date header', fast: 'end.fast', handler: (req, res) => { res.setHeader('Date', 'Tue, 01 Dec 2026 00:00:00 GMT'); res.end('d'); } },
  { name: 'removeHeader(Date)', fast: 'end.fast', handler: (req, res) => { res.removeHeader('Date'); res.end('d'); } },
  { name: 'sendDate = false', fast: 'end.fast', handler: (req, res) => { res.sendDate = false; res.end('d'); } },
  { name: 'user Connection: close', fast: 'end.fast', handler: (req, res) => { res.setHeader('Connection', 'close'); res.end('c'); } },
  { name: 'user Connection: keep-alive', fast: 'end.fast', handler: (req, res) => { res.setHeader('Connection', 'keep-alive'); res.end('k'); } },
  { name: 'user Transfer-Encoding: chunked + end(body)', fast: 'end.fallback.chunked', handler: (req, res) => { res.setHeader('Transfer-Encoding', 'chunked'); res.end('chunky'); } },
  { name: 'removeHeader(Content-Length) → chunked', fast: 'end.fallback.chunked', handler: (req, res) => { res.removeHeader('Content-Length'); res.end('chunky'); } },
  { name: 'remove CL and TE → close-delimited', fast: 'end.fast', handler: (req, res) => { res.removeHeader('Content-Length'); res.removeHeader('Transfer-Encoding'); res.end('raw'); } },
  { name: 'removeHeader(Connection)', fast: 'end.fast', handler: (req, res) => { res.removeHeader('Connection'); res.end('nc'); } },
  { name: 'user Keep-Alive header', fast: 'end.fast', handler: (req, res) => { res.setHeader('Keep-Alive', 'timeout=9'); res.end('ka'); } },
  { name: 'Expect response header falls back', fast: 'end.fallback.expect', handler: (req, res) => { res.setHeader('Expect', 'x'); res.end('e'); } },
  { name: 'Trailer header without chunked throws', noBytes: true, handler: (req, res, t) => { res.setHeader('Trailer', 'X-T'); t.try('end', () => res.end('t')); res.destroy(); } },

  // status codes
  { name: 'status 404', fast: 'end.fast', handler: (req, res) => { res.statusCode = 404; res.end('nf'); } },
  { name: 'custom statusMessage', fast: 'end.fast', handler: (req, res) => { res.statusCode = 201; res.statusMessage = 'Made It'; res.end('m'); } },
  { name: 'unknown status 999', fast: 'end.fast', handler: (req, res) => { res.statusCode = 999; res.end('u'); } },
  { name: 'statusCode as string', fast: 'end.fast', handler: (req, res) => { res.statusCode = '202'; res.end('s'); } },
  { name: 'invalid status 1000 throws', noBytes: true, handler: (req, res, t) => { res.statusCode = 1000; t.try('end', () => res.end('x')); t.snapshot('after', res); res.destroy(); } },
  { name: 'invalid statusMessage throws', noBytes: true, handler: (req, res, t) => { res.statusMessage = 'bad\r\nX: y'; t.try('end', () => res.end('x')); t.snapshot('after', res); res.destroy(); } },
  { name: '204 with body', fast: 'end.fallback.noBody', handler: (req, res) => { res.statusCode = 204; res.end('ignored'); } },
  { name: '304 with headers', fast: 'end.fallback.noBody', handler: (req, res) => { res.statusCode = 304; res.setHeader('ETag', '"x"'); res.end(); } },
  { name: '204 with chunked TE closes', handler: (req, res) => { res.statusCode = 204; res.setHeader('Transfer-Encoding', 'chunked'); res.end(); } },
  // Stock 20.2.0 looks at the body before rendering the head, and sends nothing at all here.
  { name: 'HEAD with body', request: HEAD, fast: 'end.fallback.noBody', noBytesOn: ['20.2.0'], handler: (req, res) => res.end('not sent') },
  { name: 'HEAD with Content-Length', request: HEAD, handler: (req, res) => { res.setHeader('Content-Length', 10); res.end(); } },
  { name: 'HEAD with rejectNonStandardBodyWrites', request: HEAD, serverOptions: { rejectNonStandardBodyWrites: true }, handler: (req, res, t) => { t.try('end', () => res.end('x')); if (!res.writableEnded) res.end(); } },

  // writeHead / flushHeaders / write
  { name: 'writeHead(200) + end(body) is chunked', fast: 'end.fallback.chunked', handler: (req, res) => { res.writeHead(200); res.end('w'); } },
  { name: 'writeHead with object + end(body)', fast: 'end.fast', handler: (req, res) => { res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 }); res.end('ok'); } },
  { name: 'writeHead with reason and object', fast: 'end.fast', handler: (req, res) => { res.writeHead(200, 'Fine', { 'X-A': 'b', 'Content-Length': 1 }); res.end('f'); } },
  { name: 'writeHead(obj) fast render: Connection close, numbers', fast: 'storeHeader.fast', handler: (req, res) => { res.writeHead(200, { Connection: 'close', 'Content-Length': 3, 'X-N': 7 }); res.end('abc'); } },
  { name: 'writeHead(obj) with Set-Cookie array falls back', fast: 'storeHeader.validated', handler: (req, res) => { res.writeHead(200, { 'Set-Cookie': ['a=1', 'b=2'], 'Content-Length': 1 }); res.end('s'); } },
  { name: 'writeHead(obj) content-disposition with CL falls back', fast: 'storeHeader.validated', handler: (req, res) => { res.writeHead(200, { 'Content-Length': 4, 'Content-Disposition': 'inline; filename="a.txt"' }); res.end('data'); } },
  { name: 'writeHead(obj) non-ASCII content-disposition with CL throws', noBytes: true, handler: (req, res, t) => { t.try('writeHead', () => res.writeHead(200, { 'Content-Length': 4, 'Content-Disposition': 'inline; filename="é"' })); t.snapshot('after', res); res.destroy(); } },
  // Content-Disposition before Content-Length, then a header that sends the
  // render to Node: Node must redo it from the fields as they were (found by
  // the fuzzer, seed 3275328).
  { name: 'writeHead(obj) content-disposition, CL, then Expect', noBytes: true, handler: (req, res, t) => { t.try('writeHead', () => res.writeHead(200, { 'Content-Disposition': 370, 'Content-Length': 437, Expect: '\u{1F600}' })); t.snapshot('after', res); res.destroy(); } },
  { name: 'writeHead(obj) latin1 content-disposition, CL, then Expect', handler: (req, res) => { res.writeHead(200, { 'Content-Disposition': 'inline; filename="\u00e9"', 'Content-Length': 2, Expect: 'x' }); res.end('ok'); } },
  { name: 'setHeader latin1 content-disposition, CL, then Expect', handler: (req, res) => { res.setHeader('Content-Disposition', 'inline; filename="\u00e9"'); res.setHeader('Content-Length', 2); res.setHeader('Expect', 'x'); res.writeHead(200); res.end('ok'); } },
  { name: 'writeHead(obj) inherited keys are skipped', fast: 'storeHeader.fast', handler: (req, res) => { const o = Object.create({ 'X-Inherited': 'no' }); o['Content-Length'] = 2; o['X-Own'] = 'yes'; res.writeHead(200, o); res.end('ok'); } },
  { name: 'writeHead(obj) integer-like keys and latin1 value', fast: 'storeHeader.fast', handler: (req, res) => { res.writeHead(200, { 'X-Z': 'é', 10: 'ten', 2: 'two', 'Content-Length': 2 }); res.end('ok'); } },
  { name: 'writeHead(obj) Transfer-Encoding chunked', handler: (req, res) => { res.writeHead(200, { 'Transfer-Encoding': 'chunked' }); res.end('te body'); } },
  { name: 'writeHead(obj) Date and Keep-Alive', fast: 'storeHeader.fast', handler: (req, res) => { res.writeHead(200, { Date: 'Tue, 01 Dec 2026 00:00:00 GMT', 'Keep-Alive': 'timeout=1', 'Content-Length': 0 }); res.end(); } },
  { name: 'writeHead with flat array', handler: (req, res) => { res.setHeader('X-A', 'old'); res.writeHead(200, ['X-A', '1', 'X-A', '2', 'Content-Length', '1']); res.end('a'); } },
  { name: 'setHeader then writeHead(obj) merges', fast: 'end.fast', handler: (req, res, t) => { res.setHeader('X-A', '1'); res.writeHead(201, { 'X-B': '2', 'Content-Length': 1 }); t.snapshot('after writeHead', res); res.end('m'); } },
  { name: 'writeHead without CL then end(body) → chunked', fast: 'end.fallback.chunked', handler: (req, res) => { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end('chunked body'); } },
  { name: 'writeHead + end()', fast: 'end.fast', handler: (req, res) => { res.writeHead(200, { 'Content-Length': 0 }); res.end(); } },
  { name: 'writeHead + end(Buffer)', fast: 'end.fast', handler: (req, res) => { res.writeHead(200, { 'Content-Length': 3 }); res.end(Buffer.from('abc')); } },
  { name: 'writeHead + end(utf8 string) with latin1 header', fast: 'end.fast', handler: (req, res) => { res.writeHead(200, { 'X-N': 'é', 'Content-Length': 2 }); res.end('é'); } },
  { name: 'latin1 header with Buffer body', fast: 'end.fast', handler: (req, res) => { res.setHeader('X-N', 'é'); res.end(Buffer.from('é')); } },
  { name: 'latin1 header with utf8 body', fast: 'end.fast', handler: (req, res) => { res.setHeader('X-N', 'é'); res.end('é'); } },
  { name: 'flushHeaders + end(body)', fast: 'end.fallback.headerSent', handler: (req, res) => { res.setHeader('X-F', '1'); res.flushHeaders(); res.end('after flush'); } },
  { name: 'write + end(body) is chunked', handler: (req, res) => { res.write('a'); res.end('b'); } },
  { name: 'write + end()', handler: (req, res) => { res.write('abc'); res.end(); } },
  { name: 'write Buffer chunks async then end', handler: (req, res) => { res.write(Buffer.from('1')); later(() => { res.write('2'); res.end('3'); }); } },
  { name: 'addTrailers with chunked', handler: (req, res) => { res.setHeader('Trailer', 'X-T'); res.write('body'); res.addTrailers({ 'X-T': 'v' }); res.end(); } },
  { name: 'setHeaders(Headers) with repeated Set-Cookie', fast: 'end.fast', handler: (req, res) => { const h = new Headers({ 'X-H': '1', 'Content-Type': 'text/plain' }); h.append('Set-Cookie', 'a=1'); h.append('Set-Cookie', 'b=2'); h.append('X-H', '2'); res.setHeaders(h); res.end('headers'); } },
  { name: 'setHeaders(Headers) after the head was sent throws', noBytes: false, handler: (req, res, t) => { res.end('x'); t.try('setHeaders', () => res.setHeaders(new Headers({ 'X-Late': '1' }))); } },
  { name: 'setHeaders(Map)', fast: 'end.fast', handler: (req, res) => { res.setHeaders(new Map([['X-M', '1'], ['Set-Cookie', ['a', 'b']]])); res.end('map'); } },
  { name: 'instance writeHead override (on-headers style)', fast: 'end.fast', handler: (req, res, t) => { const wh = res.writeHead; res.writeHead = function (...a) { t.log('hook', a.length); res.setHeader('X-Hooked', '1'); return wh.apply(this, a); }; res.end('h'); } },
  { name: 'instance _implicitHeader override falls back', fast: 'end.fallback.overridden', handler: (req, res) => { const ih = res._implicitHeader; res._implicitHeader = function () { res.setHeader('X-I', '1'); return ih.call(this); }; res.end('i'); } },

  // connection management
  { name: 'HTTP/1.0 request is close-delimited', request: 'GET / HTTP/1.0\r\n\r\n', fast: 'end.fast', handler: (req, res) => res.end('old') },
  { name: 'HTTP/1.0 keep-alive request', request: 'GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n', fast: 'end.fast', handler: (req, res) => res.end('old ka') },
  { name: 'Connection: close request', request: 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', fast: 'end.fast', handler: (req, res) => res.end('bye') },
  { name: 'keepAliveTimeout 0', serverOptions: { keepAliveTimeout: 0 }, fast: 'end.fast', handler: (req, res) => res.end('k0') },
  { name: 'keepAliveTimeout 2500', serverOptions: { keepAliveTimeout: 2500 }, fast: 'end.fast', handler: (req, res) => res.end('k2') },
  { name: 'maxRequestsPerSocket 2 with 3 pipelined requests', serverOptions: { maxRequestsPerSocket: 2 }, request: [GET, GET, GET], fast: 'end.fast', handler: (req, res, t, i) => res.end('req' + i) },
  { name: 'maxRequestsPerSocket 2.5', setupServer: (s) => { s.maxRequestsPerSocket = 2.5; }, request: [GET, GET], fast: 'end.fast', handler: (req, res, t, i) => res.end('r' + i) },
  { name: 'pipelined requests answered in order', request: [GET, GET, GET], fast: 'end.fast', handler: (req, res, t, i) => res.end('p' + i) },
  { name: 'pipelined requests answered in reverse (queued)', request: [GET, GET, GET], fast: 'end.fallback.noSocket', handler: (req, res, t, i) => setTimeout(() => res.end('p' + i), 30 - i * 10) },
  { name: 'sequential keep-alive requests', request: [GET, GET], sendSeparately: true, fast: 'end.fast', handler: (req, res, t, i) => res.end('s' + i) },
  { name: 'async response', fast: 'end.fast', handler: (req, res) => later(() => { res.setHeader('Content-Type', 'application/json'); res.end('{"a":1}'); }) },
  { name: 'Expect: 100-continue without writeContinue', request: 'POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n', handler: (req, res) => res.end('no continue') },
  { name: 'Expect: 100-continue with writeContinue', request: 'POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n', handler: (req, res) => { res.writeContinue(); res.end('continued'); } },
  { name: 'writeEarlyHints then end', fast: 'end.fast', handler: (req, res) => { res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' }); res.setHeader('Content-Type', 'text/html'); res.end('<p>hi</p>'); } },
  { name: 'writeContinue on a plain request then end', fast: 'end.fast', handler: (req, res) => { res.writeContinue(); res.end('c'); } },
  { name: 'uniqueHeaders option joins', serverOptions: { uniqueHeaders: ['x-u'] }, fast: 'storeHeader.special', handler: (req, res) => { res.setHeader('X-U', ['a', 'b']); res.end('u'); } },
  { name: 'uniqueHeaders option, plain value', serverOptions: { uniqueHeaders: ['x-u'] }, fast: 'end.fast', handler: (req, res) => { res.setHeader('X-U', 'a'); res.end('u'); } },
  { name: 'request body then response', request: 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello', fast: 'end.fast', handler: (req, res) => { let b = ''; req.on('data', (d) => { b += d; }); req.on('end', () => res.end('got ' + b)); } },
  { name: 'unconsumed request body', request: 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello', fast: 'end.fast', handler: (req, res) => res.end('ignored body') },

  // fallbacks on socket state
  { name: 'res.cork() before end falls back', fast: 'end.fallback.corked', handler: (req, res) => { res.cork(); res.end('corked'); } },
  { name: 'socket.cork() before end falls back', fast: 'end.fallback.corked', handler: (req, res) => { res.socket.cork(); res.end('corked'); } },
  { name: 'strictContentLength falls back', fast: 'end.fallback.strictContentLength', handler: (req, res) => { res.strictContentLength = true; res.setHeader('Content-Length', 2); res.end('ok'); } },
  { name: 'strictContentLength mismatch throws', noBytes: true, handler: (req, res, t) => { res.strictContentLength = true; res.setHeader('Content-Length', 5); t.try('end', () => res.end('ok')); res.destroy(); } },
  { name: 'res.destroy() then end', noBytes: true, handler: (req, res, t) => { res.destroy(); t.try('end', () => res.end('x')); t.snapshot('after', res); } },
  { name: 'socket destroyed then end', noBytes: true, handler: (req, res, t) => { res.socket.destroy(); t.try('end', () => res.end('x')); t.snapshot('after', res); } },
  { name: 'end twice emits write-after-end error', fast: 'end.fast', handler: (req, res, t) => { res.on('error', (e) => t.log('error', e.code)); res.end('one'); t.try('second end', () => res.end('two')); t.try('third end', () => res.end()); } },
  { name: 'write after end', fast: 'end.fast', handler: (req, res, t) => { res.on('error', (e) => t.log('error', e.code)); res.end('one'); t.try('write', () => res.write('two')); } },
  { name: 'setHeader after end throws HEADERS_SENT', fast: 'end.fast', handler: (req, res, t) => { res.end('x'); t.try('setHeader', () => res.setHeader('X', '1')); t.try('removeHeader', () => res.removeHeader('X')); t.try('appendHeader', () => res.appendHeader('X', '1')); t.try('writeHead', () => res.writeHead(200)); } },
  { name: 'state snapshots through the lifecycle', fast: 'end.fast', handler: (req, res, t) => { res.on('finish', () => t.snapshot('finish', res)); res.on('prefinish', () => t.snapshot('prefinish', res)); res.on('close', () => t.snapshot('close', res)); res.setHeader('X', '1'); t.snapshot('before', res); res.end('x'); t.snapshot('returned', res); } },
  { name: 'end returns this', fast: 'end.fast', handler: (req, res, t) => t.log('same', res.end('r') === res) },
  { name: 'new ServerResponse without socket', handler: (req, res, t) => { const http = require('http'); const fakeReq = new http.IncomingMessage(null); fakeReq.method = 'GET'; fakeReq.httpVersionMajor = 1; fakeReq.httpVersionMinor = 1; const r = new http.ServerResponse(fakeReq); r.on('finish', () => t.log('fake finish')); r.setHeader('X', '1'); t.try('end', () => r.end('fake')); t.log('outputData', r.outputData.map((o) => String(o.data).replace(/\r\nDate: [^\r]*\r\n/, '\r\nDate: <date>\r\n'))); t.snapshot('fake', r); res.end('real'); } },
];

module.exports = { scenarios, GET, HEAD };
