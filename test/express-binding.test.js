'use strict';
// Express apps whose requests are born with the app's prototypes
// (lib/frameworks/express.js), Express 4 and 5. Each scenario starts a fresh
// server twice, once on stock Node (shim uninstalled) and once patched, and
// compares the bytes on the wire, the events of every req/res, and what the
// handlers saw: prototypes, req.app, res.locals, own keys, instanceof. The
// patched run must also have bound the server, or stepped aside for the
// reason the scenario names.

process.env.HTTP_FASTPATH_STATS = '1';
const test = require('node:test');
const assert = require('node:assert');
const http = require('http');
const https = require('https');
const net = require('net');
const fs = require('fs');
const path = require('path');
const dc = require('diagnostics_channel');
const fastpath = require('..');
const { rawRequest } = require('./helpers/raw-request');
const { normaliseDates, recordEvents } = require('./helpers/differential');
const { WebSocketServer } = require('ws');
const { Server: SocketIoServer } = require('socket.io');
const stoppable = require('stoppable');
const { createTerminus } = require('@godaddy/terminus');

const STATIC = path.join(__dirname, 'fixtures', 'static');
const TLS = { key: fs.readFileSync(path.join(__dirname, 'fixtures', 'tls', 'key.pem')), cert: fs.readFileSync(path.join(__dirname, 'fixtures', 'tls', 'cert.pem')) };
const EXPRESS = { express4: require('express4'), express5: require('express') };

const get = (p, extra = '') => `GET ${p} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
const WS_HANDSHAKE = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
// engine.io's session ids are random (same length every time).
const maskSessionIds = (bytes) => bytes.replace(/"sid":"[\w-]+"/g, '"sid":"<sid>"');

function kClasses(server) {
  const out = {};
  for (const sym of Object.getOwnPropertySymbols(server)) {
    if (sym.description === 'IncomingMessage' || sym.description === 'ServerResponse') out[sym.description] = server[sym];
  }
  return out;
}

const { describe: describeTable } = require('../lib/frameworks/event-tables');

// What a handler can see of req/res, as plain data.
function look(app, req, res) {
  const protoName = (obj, appProto, nodeProto) => {
    const p = Object.getPrototypeOf(obj);
    if (p === appProto) return 'app';
    if (p === nodeProto) return 'node';
    for (const sub of app._subApps) if (p === sub.request || p === sub.response) return 'sub';
    return 'other';
  };
  return {
    req: protoName(req, app.request, http.IncomingMessage.prototype),
    res: protoName(res, app.response, http.ServerResponse.prototype),
    reqApp: req.app === app ? 'app' : typeof req.app,
    locals: res.locals === undefined ? 'none' : Object.getPrototypeOf(res.locals) === null ? 'null-proto' : 'object',
    instance: [req instanceof http.IncomingMessage, res instanceof http.ServerResponse],
    reqKeys: Object.keys(req).join(','),
    resKeys: Object.keys(res).join(','),
    reqSymbols: Object.getOwnPropertySymbols(req).map(String).join(','),
    resSymbols: Object.getOwnPropertySymbols(res).map(String).join(','),
    // listener tables: prototype, keys in order, which hold listeners
    reqEvents: describeTable(req._events),
    resEvents: describeTable(res._events),
  };
}

// A 'request' listener beside the app: logs what it sees of req/res (as
// look() does), and the events it hears on them, in order.
function laterListener(app, log, label) {
  return (req, res) => {
    log.push([label, look(app, req, res)]);
    res.on('finish', () => log.push([`${label}: finish`, res.statusCode]));
    res.on('close', () => log.push([`${label}: close`]));
  };
}

// Runs one scenario: `build(express, log)` returns { app, listen(app) -> server };
// `after(server, app, log)` may add listeners once it listens.
async function runOnce(scenario, express, patched) {
  if (patched) fastpath.install(); else fastpath.uninstall();
  fastpath.resetStats();
  const log = [];
  const app = express();
  app._subApps = [];
  app.use((req, res, next) => {
    log.push(['first middleware', look(app, req, res)]);
    recordEvents(req, 'req', log);
    recordEvents(res, 'res', log);
    res.on('finish', () => log.push(['finish', look(app, req, res)]));
    next();
  });
  scenario.routes(app, express, log, (req, res) => look(app, req, res));
  const server = await (scenario.listen ?? ((a) => new Promise((resolve) => { const s = a.listen(0, '127.0.0.1', () => resolve(s)); })))(app, log);
  if (scenario.after) scenario.after(server, app, log, (req, res) => look(app, req, res));
  const bytes = [];
  for (const [i, request] of [].concat(scenario.requests).entries()) {
    if (i > 0) scenario.between?.[i - 1]?.(server, app, log);
    bytes.push((scenario.mask ?? String)(normaliseDates((await rawRequest(server.address().port, request, { tls: scenario.tls })).toString('latin1'))));
  }
  const classes = kClasses(server);
  const status = fastpath.status();
  server.close();
  if (server.closeAllConnections) server.closeAllConnections();
  if (scenario.cleanup) scenario.cleanup();
  const binder = status.frameworks.express;
  return { bytes, log, bound: binder ? binder.bound : 0, classes, express: binder, stats: status.stats };
}

// socket.io next to the app: Express routes pipelined with engine.io's
// polling handshake, a bad engine.io request, a client file, a path that only
// starts like socket.io's, and a WebSocket handshake.
const SOCKETIO_REQUESTS = (base) => [
  get('/json') + get('/json'),
  get(`${base}/?EIO=4&transport=polling`) + get('/json'),
  get(`${base}/?EIO=9&transport=polling`),
  get(`${base}/socket.io.min.js`),
  get(`${base}x`) + get('/json'),
  get(`${base}/?EIO=4&transport=websocket`, WS_HANDSHAKE),
];

function socketIoRoutes(app, express, log, see) {
  app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); });
}

// What engine.io and socket.io see of the requests they take.
function watchSocketIo(io, log) {
  const nodeProtos = (req) => Object.getPrototypeOf(req) === http.IncomingMessage.prototype;
  io.engine.on('initial_headers', (headers, req) => log.push(['initial_headers', req.url, nodeProtos(req), Object.keys(req).join(','), describeTable(req._events)]));
  io.engine.on('connection_error', (err) => log.push(['connection_error', err.req.url, nodeProtos(err.req), err.code, err.message]));
  io.on('connection', (socket) => log.push(['io connection', nodeProtos(socket.request), socket.conn.transport.name]));
}

const SCENARIOS = [
  {
    name: 'json route, keep-alive pair and pipelined pair',
    requests: [get('/json'), get('/json') + get('/text'), get('/json') + get('/text') + get('/json')],
    routes(app, express, log, see) {
      app.get('/json', (req, res) => { log.push(['route', see(req, res), req.path, req.hostname, req.protocol]); res.set('X-A', '1').json({ a: 1 }); });
      app.get('/text', (req, res) => res.send('hello'));
    },
  },
  {
    name: 'router, params, error handler, 404, HEAD',
    requests: [get('/r/7'), get('/boom'), get('/nowhere'), 'HEAD /r/8 HTTP/1.1\r\nHost: x\r\n\r\n'],
    routes(app, express, log, see) {
      const router = express.Router();
      router.get('/:id', (req, res) => { log.push(['router', see(req, res), req.params.id, req.baseUrl]); res.json({ id: req.params.id }); });
      app.use('/r', router);
      app.get('/boom', () => { throw new Error('boom'); });
      app.use((err, req, res, next) => { log.push(['error handler', see(req, res), err.message]); res.status(500).send(err.message); }); // eslint-disable-line no-unused-vars
    },
  },
  {
    name: 'sub-app mounted with app.use swaps to its own prototypes and back',
    requests: [get('/sub/in'), get('/sub/missing')],
    routes(app, express, log, see) {
      const sub = express();
      app._subApps.push(sub);
      sub.get('/in', (req, res, next) => { log.push(['sub route', see(req, res), req.app === sub]); next(); });
      app.use('/sub', sub);
      app.use((req, res) => { log.push(['after sub', see(req, res)]); res.send('back'); });
    },
  },
  {
    name: 'res.sendFile, res.redirect, cookies, locals',
    requests: [get('/file'), get('/file', 'If-None-Match: "nope"\r\n'), get('/go'), get('/cookie')],
    routes(app, express, log, see) {
      app.get('/file', (req, res) => res.sendFile(path.join(STATIC, 'hello.txt'), { lastModified: false }, (err) => log.push(['sendFile done', see(req, res), err ? err.message : null])));
      app.get('/go', (req, res) => res.redirect('/file'));
      app.get('/cookie', (req, res) => { res.locals.seen = true; res.cookie('a', '1'); res.send(String(Object.keys(res.locals))); });
    },
  },
  {
    name: 'http.createServer(app)',
    requests: [get('/json')],
    listen: (app) => new Promise((resolve) => { const s = http.createServer(app).listen(0, '127.0.0.1', () => resolve(s)); }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
  },
  {
    name: 'new http.Server(app)',
    requests: [get('/json')],
    listen: (app) => new Promise((resolve) => { const s = new http.Server(app).listen(0, '127.0.0.1', () => resolve(s)); }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
  },
  {
    name: "server.on('request', app) before listen",
    requests: [get('/json')],
    listen: (app) => new Promise((resolve) => { const s = http.createServer(); s.on('request', app); s.listen(0, '127.0.0.1', () => resolve(s)); }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
  },
  {
    name: 'https.createServer(opts, app)',
    tls: true,
    requests: [get('/json')],
    listen: (app) => new Promise((resolve) => { const s = https.createServer(TLS, app).listen(0, '127.0.0.1', () => resolve(s)); }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res), req.secure]); res.json({}); }); },
  },
  {
    name: 'user classes: stock',
    stepAside: 'customClasses',
    requests: [get('/json')],
    listen: (app) => new Promise((resolve) => {
      class MyRequest extends http.IncomingMessage {}
      const s = http.createServer({ IncomingMessage: MyRequest }, app).listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
  },
  {
    // What a listener after the app sees, in stock Node, is what the app made
    // of req/res: Express 5 swaps the prototypes first thing, so being born
    // with them changes nothing for it. Express 4 swaps later (its router's
    // init middleware), and stays stock.
    name: 'a second request listener after the app at listen: bound (Express 5), stock (Express 4)',
    stepAsideFor: { express4: 'laterListeners' },
    later: true,
    requests: [get('/json') + get('/json'), get('/nothing'), 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
    listen: (app, log) => new Promise((resolve) => {
      const s = http.createServer(app);
      s.on('request', laterListener(app, log, 'later'));
      s.listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
  },
  {
    name: 'stoppable(server) (graceful shutdown): bound (Express 5), stock (Express 4)',
    stepAsideFor: { express4: 'laterListeners' },
    later: true,
    requests: [get('/json') + get('/json'), get('/json')],
    listen: (app, log) => new Promise((resolve) => {
      const s = stoppable(http.createServer(app));
      s.on('request', laterListener(app, log, 'after stoppable'));
      s.on('request', (req) => log.push(['pending on the socket', s._pendingSockets.get(req.socket)]));
      s.listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
  },
  {
    name: "@godaddy/terminus's createTerminus(server) without health checks: bound (Express 5), stock (Express 4)",
    stepAsideFor: { express4: 'laterListeners' },
    later: true,
    requests: [get('/json') + get('/json')],
    listen: (app, log) => new Promise((resolve) => {
      const s = createTerminus(http.createServer(app), { signal: 'SIGUSR2', timeout: 100 });
      s.on('request', laterListener(app, log, 'after terminus'));
      s.listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
  },
  {
    name: 'a request listener before the app at listen: stock',
    stepAside: 'listenerBeforeApp',
    requests: [get('/json')],
    listen: (app, log) => new Promise((resolve) => {
      const s = http.createServer(app);
      s.prependListener('request', laterListener(app, log, 'before'));
      s.listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
  },
  {
    name: 'a listener added after the app once it listens: still bound; one prepended later: stock from then on',
    requests: [get('/json'), get('/json'), get('/json')],
    between: [
      (server, app, log) => server.on('request', laterListener(app, log, 'added after listen')),
      (server, app, log) => server.prependListener('request', laterListener(app, log, 'prepended after listen')),
    ],
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
    perRequestStockFor: { express4: 1, express5: 1 },
  },
  {
    // The shape of a WebSocket server on the app's port: an upgrade goes to
    // the listener exactly as stock builds it, every other request is bound.
    name: "an 'upgrade' listener at listen: bound, upgrades built stock",
    requests: [get('/json') + get('/json') + get('/ws', 'Connection: Upgrade\r\nUpgrade: websocket\r\n'), get('/ws', 'Connection: Upgrade\r\nUpgrade: websocket\r\n')],
    listen: (app, log) => new Promise((resolve) => {
      const s = http.createServer(app);
      s.on('upgrade', (req, socket) => {
        log.push(['upgrade', Object.getPrototypeOf(req) === http.IncomingMessage.prototype, Object.keys(req).join(','), describeTable(req._events)]);
        socket.end(`HTTP/1.1 101 Switching\r\nX-Proto: ${Object.getPrototypeOf(req) === http.IncomingMessage.prototype}\r\n\r\n`);
      });
      s.listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
    perRequestStock: 2,
  },
  {
    name: "a 'connect' listener at listen: bound, CONNECT built stock",
    // CONNECT on a connection of its own: where it follows pipelined requests,
    // whether the last response's 'close' comes before the client has read
    // everything depends on timing, in stock too.
    requests: [get('/json'), get('/json'), 'CONNECT x:1 HTTP/1.1\r\nHost: x:1\r\n\r\n'],
    listen: (app, log) => new Promise((resolve) => {
      const s = http.createServer(app);
      s.on('connect', (req, socket) => { log.push(['connect', Object.getPrototypeOf(req) === http.IncomingMessage.prototype, Object.keys(req).join(',')]); socket.end('HTTP/1.1 200 Connected\r\n\r\n'); });
      s.listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
    perRequestStock: 1,
  },
  {
    name: 'a ws WebSocketServer on the same server: bound; the handshake and the connection as stock',
    requests: [
      get('/json'), get('/json'),
      get('/json') + get('/chat', 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n'),
    ],
    listen: (app, log) => new Promise((resolve) => {
      const s = http.createServer(app);
      const wss = new WebSocketServer({ server: s });
      wss.on('connection', (ws, req) => {
        log.push(['ws connection', Object.getPrototypeOf(req) === http.IncomingMessage.prototype, req.url, Object.keys(req).join(',')]);
        ws.close(1000, 'bye');
      });
      s.listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
    perRequestStock: 1,
  },
  {
    name: 'a listener that only forwards to the app: bound from its second request',
    requests: [get('/json') + get('/json') + get('/json'), get('/json')],
    listen: (app) => new Promise((resolve) => { const s = http.createServer((req, res) => app(req, res)).listen(0, '127.0.0.1', () => resolve(s)); }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
    perRequestStock: 1,
    shape: 'forwarder',
  },
  {
    name: 'a listener that forwards to app.handle with a block body: bound',
    requests: [get('/json') + get('/json')],
    listen: (app) => new Promise((resolve) => { const s = http.createServer(function (req, res) { return app.handle(req, res); }).listen(0, '127.0.0.1', () => resolve(s)); }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
    perRequestStock: 1,
    shape: 'forwarder',
  },
  {
    name: 'a wrapper that answers some paths itself: stock, and it sees stock objects',
    stepAside: 'notExpress',
    requests: [get('/health') + get('/json') + get('/health')],
    listen: (app, log) => new Promise((resolve) => {
      const s = http.createServer((req, res) => {
        log.push(['wrapper', Object.getPrototypeOf(req) === http.IncomingMessage.prototype, Object.getPrototypeOf(res) === http.ServerResponse.prototype, typeof req.get]);
        if (req.url === '/health') res.end('ok');
        else app(req, res);
      });
      s.listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
  },
  {
    // socket.io's two listeners (client files, then engine.io) in front of
    // the app: their paths and upgrades built stock, every other request bound.
    name: 'socket.io attached before listen: bound; its handshakes, client file and prefix look-alikes as stock',
    requests: SOCKETIO_REQUESTS('/socket.io'),
    listen: (app, log) => new Promise((resolve) => {
      const s = http.createServer(app);
      watchSocketIo(new SocketIoServer(s), log);
      s.listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes: socketIoRoutes,
    mask: maskSessionIds,
    perRequestStock: 5,
    shape: 'engineIo',
  },
  {
    name: 'socket.io attached after app.listen(): bound again behind it',
    requests: [get('/json')].concat(SOCKETIO_REQUESTS('/socket.io')),
    listen: (app, log) => new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
      watchSocketIo(new SocketIoServer(s), log);
    }),
    routes: socketIoRoutes,
    mask: maskSessionIds,
    perRequestStock: 5,
    shape: 'engineIo',
  },
  {
    name: 'socket.io on its own path without client files (engine.io alone in front)',
    // '/rtx' is outside engine.io's '/rt/'.
    requests: SOCKETIO_REQUESTS('/rt').concat([get('/socket.io/socket.io.min.js')]),
    listen: (app, log) => new Promise((resolve) => {
      const s = http.createServer(app);
      watchSocketIo(new SocketIoServer(s, { path: '/rt', serveClient: false }), log);
      s.listen(0, '127.0.0.1', () => resolve(s));
    }),
    routes: socketIoRoutes,
    mask: maskSessionIds,
    perRequestStock: 4,
    shape: 'engineIo',
  },
  {
    name: 'socket.io whose client-file path moves after listen (io.path()): the new prefix is built stock',
    requests: [get('/json'), get('/moved/socket.io.min.js'), get('/moved/x')],
    listen: (app, log) => new Promise((resolve) => {
      const s = http.createServer(app);
      const io = new SocketIoServer(s);
      watchSocketIo(io, log);
      s.listen(0, '127.0.0.1', () => { io.path('/moved'); resolve(s); });
    }),
    routes: socketIoRoutes,
    perRequestStock: 2,
    shape: 'engineIo',
  },
  {
    name: 'a listener prepended after listen sees stock objects',
    requests: [get('/json'), get('/json')],
    after(server, app, log) {
      server.prependListener('request', (req, res) => log.push(['prepended', Object.getPrototypeOf(req) === http.IncomingMessage.prototype, Object.getPrototypeOf(res) === http.ServerResponse.prototype]));
    },
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
    perRequestStock: 2,
  },
  {
    name: "'upgrade' and 'connect' listeners added after listen see stock objects",
    requests: [get('/ws', 'Connection: Upgrade\r\nUpgrade: websocket\r\n'), 'CONNECT x:1 HTTP/1.1\r\nHost: x:1\r\n\r\n', get('/json')],
    after(server, app, log) {
      server.on('upgrade', (req, socket) => { log.push(['upgrade', Object.getPrototypeOf(req) === http.IncomingMessage.prototype]); socket.end('HTTP/1.1 101 Switching\r\n\r\n'); });
      server.on('connect', (req, socket) => { log.push(['connect', Object.getPrototypeOf(req) === http.IncomingMessage.prototype]); socket.end('HTTP/1.1 200 Connected\r\n\r\n'); });
    },
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
    perRequestStock: 2,
  },
  {
    name: "'checkContinue' and 'checkExpectation' listeners added after listen see stock objects",
    requests: [
      'POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nhi',
      'POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: something\r\n\r\nhi',
    ],
    after(server, app, log) {
      const see = (label) => (req, res) => {
        log.push([label, Object.getPrototypeOf(req) === http.IncomingMessage.prototype, Object.getPrototypeOf(res) === http.ServerResponse.prototype]);
        res.writeContinue();
        app(req, res);
      };
      server.on('checkContinue', see('checkContinue'));
      server.on('checkExpectation', see('checkExpectation'));
    },
    routes(app, express, log, see) { app.post('/p', (req, res) => { log.push(['route', see(req, res)]); res.send('posted'); }); },
    perRequestStock: 2,
  },
  {
    name: 'a diagnostics_channel subscriber added after listen sees stock objects',
    requests: [get('/json')],
    after(server, app, log) {
      const onStart = ({ request, response }) => log.push(['request.start', Object.getPrototypeOf(request) === http.IncomingMessage.prototype, Object.getPrototypeOf(response) === http.ServerResponse.prototype]);
      dc.subscribe('http.server.request.start', onStart);
      this.cleanup = () => dc.unsubscribe('http.server.request.start', onStart);
    },
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
    perRequestStock: 1,
  },
  {
    name: 'a request Node itself rejects (Expect without a listener: 417)',
    requests: ['POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: something\r\n\r\nhi', get('/json')],
    routes(app, express, log, see) { app.get('/json', (req, res) => { log.push(['route', see(req, res)]); res.json({}); }); },
  },
];

for (const [version, express] of Object.entries(EXPRESS)) {
  for (const scenario of SCENARIOS) {
    test(`${version}: ${scenario.name}`, async () => {
      const stock = await runOnce(scenario, express, false);
      const patched = await runOnce(scenario, express, true);
      assert.ok(stock.bytes.every((b) => b.startsWith('HTTP/1.1')), `stock answered: ${JSON.stringify(stock.bytes)}`);
      assert.deepStrictEqual(patched.bytes, stock.bytes);
      assert.deepStrictEqual(patched.log, stock.log);
      assert.strictEqual(stock.bound, 0);
      const stepAside = scenario.stepAsideFor?.[version] ?? scenario.stepAside;
      if (stepAside) {
        assert.strictEqual(patched.bound, 0, 'stepped aside');
        assert.strictEqual(patched.classes.ServerResponse, http.ServerResponse);
        assert.strictEqual(patched.express.stepAside[stepAside], 1, JSON.stringify(patched.express));
      } else {
        assert.strictEqual(patched.bound, 1, `bound: ${JSON.stringify(patched.express)}`);
        assert.notStrictEqual(patched.classes.IncomingMessage, http.IncomingMessage);
        assert.notStrictEqual(patched.classes.ServerResponse, http.ServerResponse);
        // V8 sizes instances from the constructor's [[Prototype]] chain, as for Node's classes.
        assert.strictEqual(Object.getPrototypeOf(patched.classes.IncomingMessage), http.IncomingMessage);
        assert.strictEqual(Object.getPrototypeOf(patched.classes.ServerResponse), http.ServerResponse);
        // Node's literal tables: IncomingMessage's on every line, OutgoingMessage's from Node 26.
        const literal = (message) => Object.getPrototypeOf(message._events) === Object.prototype;
        const expected = [];
        if (literal(new http.IncomingMessage(null))) expected.push('request');
        if (literal(new http.OutgoingMessage())) expected.push('response');
        assert.deepStrictEqual(patched.express.listenerTables, expected);
        assert.strictEqual(patched.stats['express.request.stock'], scenario.perRequestStockFor?.[version] ?? scenario.perRequestStock, JSON.stringify(patched.stats));
        assert.deepStrictEqual(patched.express.shapes[scenario.shape ?? 'app'], 1, JSON.stringify(patched.express));
        assert.strictEqual(patched.express.shapes.withLaterListeners, scenario.later ? 1 : 0, JSON.stringify(patched.express));
        assert.strictEqual(patched.express.forwardersLearning, 0);
      }
    });
  }
}

test('uninstall() puts Node\'s own classes back on every bound server; a server that listens while uninstalled stays stock', async () => {
  fastpath.install();
  const app = EXPRESS.express5();
  const a = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  const b = await new Promise((resolve) => { const s = http.createServer(app).listen(0, '127.0.0.1', () => resolve(s)); });
  assert.notStrictEqual(kClasses(a).IncomingMessage, http.IncomingMessage);
  assert.notStrictEqual(kClasses(b).ServerResponse, http.ServerResponse);
  fastpath.uninstall();
  for (const s of [a, b]) assert.deepStrictEqual(kClasses(s), { IncomingMessage: http.IncomingMessage, ServerResponse: http.ServerResponse });
  const c = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  assert.deepStrictEqual(kClasses(c), { IncomingMessage: http.IncomingMessage, ServerResponse: http.ServerResponse });
  for (const s of [a, b, c]) s.close();
  fastpath.install();
});

test('a forwarder to something that is not Express gets Node\'s constructor back after 16 requests', async () => {
  fastpath.install();
  fastpath.resetStats();
  const koa = new (require('koa'))();
  koa.use((ctx) => { ctx.body = { proto: Object.getPrototypeOf(ctx.req) === http.IncomingMessage.prototype }; });
  const handler = koa.callback();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const requests = Array.from({ length: 20 }, () => get('/')).join('');
  const bytes = (await rawRequest(server.address().port, requests)).toString('latin1');
  const express = fastpath.status().frameworks.express;
  const classes = kClasses(server);
  server.close();
  assert.strictEqual(bytes.split('{"proto":true}').length - 1, 20, bytes);
  assert.strictEqual(express.stepAside.forwarderNotExpress, 1, JSON.stringify(express));
  assert.strictEqual(express.forwardersLearning, 0);
  assert.strictEqual(classes.IncomingMessage, http.IncomingMessage);
});

// Apollo Server's documented Express shape: http.createServer(app) and the
// drain plugin, whose Stopper adds a 'request' listener after the app.
test("Apollo Server with ApolloServerPluginDrainHttpServer on Express 5: bound, the same bytes, stop() drains as stock", async () => {
  const { ApolloServer } = require('@apollo/server');
  const { ApolloServerPluginDrainHttpServer } = require('@apollo/server/plugin/drainHttpServer');
  const { expressMiddleware } = require('@as-integrations/express5');
  const serve = async (patched) => {
    if (patched) fastpath.install(); else fastpath.uninstall();
    fastpath.resetStats();
    const app = EXPRESS.express5();
    const httpServer = http.createServer(app);
    const seen = [];
    const apollo = new ApolloServer({
      typeDefs: 'type Query { hello(name: String): String }',
      resolvers: { Query: { hello: (_, { name }) => `hello ${name}` } },
      plugins: [ApolloServerPluginDrainHttpServer({ httpServer })],
    });
    await apollo.start();
    app.use('/graphql', EXPRESS.express5.json(), expressMiddleware(apollo));
    httpServer.on('request', (req, res) => seen.push([Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response, Object.keys(req).join(',')]));
    await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    const body = JSON.stringify({ query: 'query { hello(name: "x") }' });
    const post = `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const bytes = normaliseDates((await rawRequest(httpServer.address().port, post + post)).toString('latin1'));
    const status = fastpath.status();
    await apollo.stop(); // the drain: closes the idle keep-alive connection, waits for none in flight
    return { bytes, seen, listening: httpServer.listening, bound: status.frameworks.express?.bound ?? 0, shapes: status.frameworks.express?.shapes };
  };
  const stock = await serve(false);
  const patched = await serve(true);
  assert.match(stock.bytes, /"data":\{"hello":"hello x"\}/);
  assert.strictEqual(patched.bytes, stock.bytes);
  assert.deepStrictEqual(patched.seen, stock.seen);
  assert.deepStrictEqual(stock.seen.map((s) => s.slice(0, 2)), [[true, true], [true, true]]);
  assert.strictEqual(patched.listening, stock.listening);
  assert.strictEqual(patched.bound, 1);
  assert.strictEqual(patched.shapes.withLaterListeners, 1);
});

// Why Express 4 stays stock beside later listeners: an app without routes
// answers without ever swapping the prototypes (no router, so no init
// middleware), and a later listener sees Node's own in stock.
test('Express 4 without routes and a listener after it: the listener sees Node\'s prototypes, as stock', async () => {
  const seen = async (patched) => {
    if (patched) fastpath.install(); else fastpath.uninstall();
    const app = EXPRESS.express4();
    const protos = [];
    const server = http.createServer(app);
    server.on('request', (req, res) => protos.push([Object.getPrototypeOf(req) === http.IncomingMessage.prototype, Object.getPrototypeOf(res) === http.ServerResponse.prototype]));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const bytes = normaliseDates((await rawRequest(server.address().port, get('/'))).toString('latin1'));
    server.close();
    return { bytes, protos };
  };
  const stock = await seen(false);
  const patched = await seen(true);
  assert.deepStrictEqual(stock.protos, [[true, true]]);
  assert.deepStrictEqual(patched, stock);
});

test('only Express apps are recognised', () => {
  const { isExpressApp } = require('../lib/frameworks/express');
  assert.strictEqual(isExpressApp(EXPRESS.express4()), true);
  assert.strictEqual(isExpressApp(EXPRESS.express5()), true);
  assert.strictEqual(isExpressApp(EXPRESS.express5.Router()), false);
  assert.strictEqual(isExpressApp((req, res) => res.end()), false);
  const lookalike = Object.assign(() => {}, { handle() {}, set() {}, request: {}, response: {} });
  assert.strictEqual(isExpressApp(lookalike), false);
  assert.strictEqual(isExpressApp(new (require('koa'))().callback()), false);
  const { isForwarder } = require('../lib/frameworks/express');
  const app = EXPRESS.express5();
  const forwarders = [(req, res) => app(req, res), (q, s) => { app(q, s); }, function (req, res) { return app.handle(req, res); }];
  const others = [(req, res) => app(res, req), (req, res) => { if (req.url === '/') return res.end(); app(req, res); }, async (req, res) => app(req, res), (req, res) => req(req, res), (req) => app(req)];
  assert.deepStrictEqual(forwarders.map(isForwarder), [true, true, true]);
  assert.deepStrictEqual(others.map(isForwarder), [false, false, false, false, false]);
  assert.strictEqual(net.Server.prototype.listen.name, 'listen');
});

test('only the connections of a bound server that takes upgrades have the parser callback wrapped; a pooled parser gets Node\'s back', async () => {
  fastpath.install();
  const { HTTPParser, parsers } = require('_http_common');
  const k = HTTPParser.kOnHeadersComplete;
  const nodeCallback = parsers.ctor()[k];
  const seen = [];
  const app = EXPRESS.express5();
  app.get('/', (req, res) => { seen.push(['bound', req.socket.parser[k] === nodeCallback]); res.json({}); });
  const bound = http.createServer(app);
  bound.on('upgrade', (req, socket) => socket.destroy());
  const plain = http.createServer((req, res) => { seen.push(['plain', req.socket.parser[k] === nodeCallback]); res.end('ok'); });
  for (const s of [bound, plain]) await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  // One connection at a time, so that each takes the parser the last one freed.
  for (const s of [bound, plain, bound, plain]) {
    await rawRequest(s.address().port, get('/'));
    while (await new Promise((resolve) => s.getConnections((err, n) => resolve(n))) > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const client = await new Promise((resolve) => http.get({ port: plain.address().port, path: '/' }, (res) => { resolve(res.socket.parser[k] === nodeCallback); res.resume(); }));
  for (const s of [bound, plain]) s.close();
  assert.deepStrictEqual(seen, [['bound', false], ['plain', true], ['bound', false], ['plain', true], ['plain', true]]);
  assert.strictEqual(client, true);
});

test('socket.io imported as ESM is recognised through the engine.io it requires', () => {
  const { execFileSync } = require('child_process');
  const out = execFileSync(process.execPath, ['-r', path.join(__dirname, '..'), path.join(__dirname, 'fixtures', 'socketio-esm-app.mjs')], {
    env: { ...process.env, HTTP_FASTPATH_STATS: '1' }, encoding: 'utf8',
  });
  const result = JSON.parse(out);
  assert.deepStrictEqual(result.seen, [['/json', 200], ['/socket.io/socket.io.min.js', 200], ['/json', 200]]);
  assert.strictEqual(result.shapes.engineIo, 1, out);
  assert.deepStrictEqual([result.gates.engineIo.adopted, result.gates.socketIo.adopted, result.gates.attached], [1, 1, 2]);
  assert.deepStrictEqual([result.stock, result.gate], [1, 1]);
});

test('engine.io and socket.io versions whose source is not known are left as they are, and their servers stay stock', async () => {
  fastpath.install();
  const gates = require('../lib/frameworks/request-gates');
  const before = gates.snapshot();
  // Same names and shapes, another body: what a future release could look like.
  class EngineServer {
    _computePath() { return '/engine.io/'; }
    attach(server) {
      const listeners = server.listeners('request');
      server.removeAllListeners('request');
      server.on('request', (req, res) => (req.url.startsWith('/engine.io/') ? res.end('engine') : listeners[0].call(server, req, res)));
    }
  }
  const { attach } = EngineServer.prototype;
  gates.adoptEngineIo({ Server: EngineServer });
  gates.adoptEngineIo({ Server: EngineServer }); // counted once
  gates.adoptSocketIo({ Server: class { attachServe() {} } });
  const after = gates.snapshot();
  assert.strictEqual(EngineServer.prototype.attach, attach);
  assert.strictEqual(after.engineIo.unknownVersion, before.engineIo.unknownVersion + 1);
  assert.strictEqual(after.socketIo.unknownVersion, before.socketIo.unknownVersion + 1);

  const app = EXPRESS.express5();
  app.get('/json', (req, res) => res.json({}));
  const server = http.createServer(app);
  new EngineServer().attach(server);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const bytes = (await rawRequest(server.address().port, get('/json') + get('/engine.io/'))).toString('latin1');
  server.close();
  assert.match(bytes, /^HTTP\/1\.1 200 OK[^]*\{\}HTTP\/1\.1 200 OK[^]*engine$/);
  assert.strictEqual(kClasses(server).IncomingMessage, http.IncomingMessage);
  assert.strictEqual(fastpath.status().frameworks.express.stepAside.notExpress >= 1, true);
});
