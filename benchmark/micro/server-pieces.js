'use strict';
// What the per-request pieces of Node's HTTP/1 server that issue 37 names
// cost on their own, without the network, in ns per request (medians):
//   keepAliveTimer  socket.setTimeout(keepAliveTimeout + 1000) at a response's
//                   finish and setTimeout(0) at the next request
//   closePair       the response's 'close' listener added to and removed from
//                   the socket (assignSocket / detachSocket)
//   dump            req._dump() of a GET nobody read: resume, the 'end' and
//                   'close' ticks (a batch with it against one without)
//   jsonParse       JSON.parse of the 299-byte document of http/body.js, from a
//                   fresh string (for scale: the one part of a POST that stays)
//   node benchmark/micro/server-pieces.js [--n 200000] [--rounds 5] [--dry-run]

const http = require('http');
const net = require('net');
const { parseArgs, median, printTable } = require('../common/util');

const args = parseArgs(process.argv.slice(2), { n: 200000, rounds: 5 });
if (args['dry-run']) { args.n = 500; args.rounds = 1; }

const loop = (n, fn) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - start) / n;
};

function keepAliveTimer(n) {
  const socket = new net.Socket();
  return loop(n, () => { socket.setTimeout(5000 + 1000); socket.setTimeout(0); });
}

function closePair(n) {
  const socket = new net.Socket();
  socket.on('close', function socketOnClose() {});
  const onServerResponseClose = function onServerResponseClose() {};
  return loop(n, () => { socket.on('close', onServerResponseClose); socket.removeListener('close', onServerResponseClose); });
}

// Requests in batches of 100, each ended by its parser's push(null); with
// `dump`, each is dumped as resOnFinish does and the batch waits for every
// 'close'; without, the batch waits one setImmediate. Both add one listener
// or one immediate per request, so the difference is the dump's own work.
async function dump(n) {
  const socket = new net.Socket();
  const batch = async (withDump, count) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i += 100) {
      await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => new Promise((resolve) => {
        const req = new http.IncomingMessage(socket);
        req.complete = true;
        req.push(null);
        if (withDump) {
          req._dump();
          req.once('close', resolve);
        } else {
          setImmediate(resolve);
        }
      })));
    }
    return Number(process.hrtime.bigint() - start) / count;
  };
  const count = Math.max(100, Math.floor(n / 4));
  await batch(true, count);
  await batch(false, count);
  return (await batch(true, count)) - (await batch(false, count));
}

function jsonParse(n) {
  const items = Array.from({ length: 6 }, (_, i) => ({ sku: `A-${100 + i}`, qty: (i % 3) + 1, box: 'small' }));
  const bytes = Buffer.from(JSON.stringify({ user: 'u-1029', items, note: 'leave at the door, ring twice!!!!!' }));
  let sink = 0;
  const ns = loop(Math.floor(n / 10), () => { sink += JSON.parse(bytes.toString()).items.length; });
  return sink > 0 ? ns : NaN;
}

(async () => {
  const samples = { keepAliveTimer: [], closePair: [], dump: [], jsonParse: [] };
  for (let r = 0; r < args.rounds + 1; r++) {
    const round = { keepAliveTimer: keepAliveTimer(args.n), closePair: closePair(args.n), dump: await dump(args.n), jsonParse: jsonParse(args.n) };
    if (r === 0) continue; // warm-up
    for (const k of Object.keys(samples)) samples[k].push(round[k]);
  }
  const row = { node: process.version };
  for (const [k, v] of Object.entries(samples)) row[`${k} ns`] = median(v).toFixed(0);
  printTable([row]);
})();
