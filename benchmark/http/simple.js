'use strict';
// Node's classic benchmark/http/simple.js shape: a response of `len` bytes as
// a string or Buffer, in `chunks` writes, optionally with chunked encoding.
const http = require('http');
const common = require('../common/bench');

const bench = common.createBenchmark(main, {
  type: ['bytes', 'buffer'], len: [4, 1024], chunks: [1, 4], chunkedEnc: [0, 1], c: [50],
});

function main({ type, len, chunks, chunkedEnc, c }) {
  const body = type === 'buffer' ? Buffer.alloc(len, 'x') : 'x'.repeat(len);
  const parts = [];
  const step = Math.ceil(len / chunks);
  for (let i = 0; i < chunks; i++) parts.push(body.slice(i * step, (i + 1) * step));
  const server = http.createServer((req, res) => {
    const headers = { 'Content-Type': 'text/plain' };
    if (chunkedEnc) headers['Transfer-Encoding'] = 'chunked';
    else headers['Content-Length'] = String(Buffer.byteLength(body));
    res.writeHead(200, headers);
    if (chunks === 1) {
      res.end(body);
    } else {
      for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]);
      res.end(parts[parts.length - 1]);
    }
  });
  server.listen(0, '127.0.0.1', () => {
    bench.http({ port: server.address().port, connections: c }, () => server.close());
  });
}
