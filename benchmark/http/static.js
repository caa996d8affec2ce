'use strict';
// One file served over and over: by express.static, @fastify/static,
// koa-static, or a plain fs.createReadStream(file).pipe(res) with its
// Content-Length. Reports req/s, CPU µs per request and the bytes the client
// received (files.js turns them into MiB/s and CPU per MiB).
// client=discard (outside the grid) loads it with discard-load.py instead of wrk.
const common = require('../common/bench');
const { fileFor } = require('../fixtures/static-files');

const bench = common.createBenchmark(main, { server: ['pipe', 'express', 'fastify', 'koa'], size: ['1m', '4k', '64k', '16m'], c: [50] });

function start(server, { dir, name, file, bytes }, listening) {
  if (server === 'pipe') {
    const http = require('http');
    const fs = require('fs');
    const s = http.createServer((req, res) => {
      res.setHeader('Content-Type', 'application/octet-stream');
      res.setHeader('Content-Length', bytes);
      fs.createReadStream(file).pipe(res);
    });
    return s.listen(0, '127.0.0.1', () => listening(s));
  }
  if (server === 'express') {
    const express = require('express');
    const app = express();
    app.use(express.static(dir));
    const s = app.listen(0, '127.0.0.1', () => listening(s));
    return s;
  }
  if (server === 'fastify') {
    const app = require('fastify')();
    app.register(require('@fastify/static'), { root: dir });
    app.listen({ port: 0, host: '127.0.0.1' }).then(() => listening(app.server));
    return;
  }
  if (server === 'koa') {
    const Koa = require('koa');
    const app = new Koa();
    app.use(require('koa-static')(dir));
    const s = app.listen(0, '127.0.0.1', () => listening(s));
    return s;
  }
  throw new Error(`unknown server ${server}`);
}

function main({ server, size, c, client }) {
  const target = fileFor(size);
  start(server, target, (s) => {
    bench.http({ port: s.address().port, path: `/${target.name}`, connections: c, client }, () => s.close());
  });
}
