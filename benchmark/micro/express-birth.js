'use strict';
// µs per Express request without the network: Node's constructors build
// req/res, then app.handle runs a one-line route. Compares how the objects
// get Express's prototypes:
//   stock    new IncomingMessage / ServerResponse, Express swaps prototypes
//   call     a function whose prototype is the app's, calling Node's constructor on `this`
//   chained  the constructors lib/frameworks/express.js gives the server: `call`, each
//            inheriting from Node's constructor, from whose chain V8 sizes the instances
//   reflect  Reflect.construct(Node's constructor, args, target with the app's prototype)
// Each technique runs in its own process so that none sees another's shapes.
//   node benchmark/micro/express-birth.js [--n 20000] [--runs 5] [--dry-run]

const { spawnSync } = require('child_process');
const { parseArgs, median, printTable } = require('../common/util');

const TECHNIQUES = ['stock', 'call', 'chained', 'reflect'];
const args = parseArgs(process.argv.slice(2), { n: 20000, runs: 5 });
if (args['dry-run']) { args.n = 200; args.runs = 1; }

function measure(technique, n, runs) {
  const http = require('http');
  const net = require('net');
  const express = require('express');
  const { makeExpressBinder } = require('../../lib/frameworks/express');
  const { IncomingMessage, ServerResponse } = http;
  const app = express();
  let sink = 0;
  app.get('/x', (req, res) => { sink += req.path.length + (res.locals ? 1 : 0); });
  function RequestTarget() {}
  RequestTarget.prototype = app.request;
  function ResponseTarget() {}
  ResponseTarget.prototype = app.response;
  function CallRequest(socket) { IncomingMessage.call(this, socket); }
  CallRequest.prototype = app.request;
  function CallResponse(req, options) { ServerResponse.call(this, req, options); }
  CallResponse.prototype = app.response;
  // The shipped constructors, from the binder itself, on a server whose only
  // request listener is the app.
  const server = http.createServer(app);
  makeExpressBinder().consider(server);
  const bound = (name) => server[Object.getOwnPropertySymbols(server).find((sym) => sym.description === name)];
  const shipped = [bound('IncomingMessage'), bound('ServerResponse')];
  const classes = {
    stock: [IncomingMessage, ServerResponse],
    call: [CallRequest, CallResponse],
    chained: shipped,
    reflect: [
      function ReflectRequest(socket) { return Reflect.construct(IncomingMessage, [socket], RequestTarget); },
      function ReflectResponse(req, options) { return Reflect.construct(ServerResponse, [req, options], ResponseTarget); },
    ],
  };
  const [Req, Res] = classes[technique];
  const socket = new net.Socket();
  const options = { highWaterMark: 16384, rejectNonStandardBodyWrites: false };
  const once = (count) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i++) {
      const req = new Req(socket);
      req.method = 'GET';
      req.url = '/x';
      app.handle(req, new Res(req, options), () => {});
    }
    return Number(process.hrtime.bigint() - start) / count / 1000;
  };
  once(Math.ceil(n / 10));
  const samples = [];
  for (let r = 0; r < runs; r++) samples.push(once(n));
  return { us: median(samples), sink };
}

if (args.child) {
  process.stdout.write(JSON.stringify(measure(args.child, args.n, args.runs)));
} else {
  const row = { node: process.version };
  for (const t of TECHNIQUES) {
    const r = spawnSync(process.execPath, [__filename, '--child', t, '--n', String(args.n), '--runs', String(args.runs)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    row[`${t} µs`] = JSON.parse(r.stdout).us.toFixed(2);
  }
  printTable([row]);
}
