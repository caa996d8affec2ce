'use strict';
// A POST whose body a framework reads and parses, answered with a small JSON:
//   express5 / express4  express.json() (parser=json) or express.urlencoded()
//                        (parser=form), then res.json({ ok, n })
//   fastify              its own JSON content-type parser; for parser=form,
//                        querystring.parse as a string content-type parser
//   koa                  koa-bodyparser, if installed (parser=json|form)
//   http                 plain http: setEncoding('utf8'), 'data'/'end',
//                        JSON.parse or querystring.parse, writeHead + end
// body=300: a 299-byte JSON document ({ user, items: [6 small objects],
// note }) or its form encoding of about the same size; body=8k: ~8 KB.
// Run it with `framework=... parser=json|form body=300|8k`.
const common = require('../common/bench');
const querystring = require('querystring');

const bench = common.createBenchmark(main, {
  framework: ['express5', 'express4', 'fastify', 'koa', 'http'], parser: ['json', 'form'], body: ['300', '8k'], c: [50],
});

function document(items) {
  return {
    user: 'u-1029',
    items: Array.from({ length: items }, (_, i) => ({ sku: `A-${100 + i}`, qty: (i % 3) + 1, box: 'small' })),
    note: 'leave at the door, ring twice!!!!!',
  };
}

// JSON of the document, and a form of its flattened fields.
function bodies(size) {
  const items = size === '8k' ? 210 : 6;
  const json = JSON.stringify(document(items));
  const flat = { user: 'u-1029', note: 'leave at the door, ring twice' };
  for (let i = 0; querystring.stringify(flat).length < json.length - 20; i++) flat[`item${i}`] = `A-${100 + i}:${(i % 3) + 1}`;
  return { json, form: querystring.stringify(flat) };
}

const TYPES = { json: 'application/json', form: 'application/x-www-form-urlencoded' };

function load(port, { parser, body, c }, done) {
  bench.http({ port, path: '/submit', method: 'POST', body: bodies(body)[parser], headers: { 'Content-Type': TYPES[parser] }, connections: c }, done);
}

const count = (body) => (Array.isArray(body.items) ? body.items.length : Object.keys(body).length);

function main(conf) {
  const { framework, parser } = conf;
  if (framework === 'express5' || framework === 'express4') {
    const express = require(framework === 'express4' ? 'express4' : 'express');
    const app = express();
    app.use(parser === 'json' ? express.json() : express.urlencoded({ extended: false }));
    app.post('/submit', (req, res) => res.json({ ok: true, n: count(req.body) }));
    const server = app.listen(0, '127.0.0.1', () => load(server.address().port, conf, () => server.close()));
  } else if (framework === 'fastify') {
    const app = require('fastify')();
    if (parser === 'form') app.addContentTypeParser(TYPES.form, { parseAs: 'string' }, (req, text, done) => done(null, querystring.parse(text)));
    app.post('/submit', (req) => ({ ok: true, n: count(req.body) }));
    app.listen({ port: 0, host: '127.0.0.1' }).then(() => load(app.server.address().port, conf, () => app.close()));
  } else if (framework === 'koa') {
    const app = new (require('koa'))();
    app.use(require('koa-bodyparser')());
    app.use((ctx) => { ctx.body = { ok: true, n: count(ctx.request.body) }; });
    const server = app.listen(0, '127.0.0.1', () => load(server.address().port, conf, () => server.close()));
  } else {
    const http = require('http');
    const parse = parser === 'json' ? JSON.parse : querystring.parse;
    const server = http.createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => { text += chunk; });
      req.on('end', () => {
        const out = JSON.stringify({ ok: true, n: count(parse(text)) });
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(out) });
        res.end(out);
      });
    });
    server.listen(0, '127.0.0.1', () => load(server.address().port, conf, () => server.close()));
  }
}
