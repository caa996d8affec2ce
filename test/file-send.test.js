'use strict';
// The native file path (lib/file/read-stream-pipe.js, src/file_send),
// scenario by scenario against stock (test/helpers/file-differential.js).

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const http = require('http');
const net = require('net');
const path = require('path');
const { AsyncLocalStorage } = require('async_hooks');
const {
  fastpath, skip, DIR, TLS, SIZES, FILES, BIG, runOnce, files, delta, differential, get, pipeFile,
} = require('./helpers/file-differential');

test('sizes from 0 bytes to 5 MiB: same bytes, events and counts as stock', { skip }, async () => {
  for (const size of SIZES) {
    // An empty file has no end fstat can vouch for (/proc files say 0 too): stock.
    await differential({ handler: pipeFile(FILES[size]), expect: size === 0 ? { stock: { emptyOrSpecialFile: 1 } } : undefined });
  }
});

test('ranges: start/end within, at the edges of, and to the end of the file', { skip }, async () => {
  const file = FILES[(1 << 20) + 3];
  const size = (1 << 20) + 3;
  for (const [start, end] of [[0, 0], [10, 99], [size - 1, size - 1], [1000, undefined], [undefined, 4096], [65536, 65536 + 65535], [5, size - 1]]) {
    await differential({ handler: pipeFile(file, { start, end }) });
  }
});

test('by file descriptor: at a start, and at the file\'s own offset', { skip }, async () => {
  const file = FILES[65537];
  await differential({ handler: pipeFile(file, { fd: () => fs.openSync(file, 'r'), start: 100 }) });
  // No start: Node reads from the descriptor's current offset, and so must sendfile.
  await differential({
    handler: (req, res, t) => {
      const fd = fs.openSync(file, 'r');
      fs.readSync(fd, Buffer.alloc(1000), 0, 1000, null);
      res.setHeader('Content-Length', 65537 - 1000);
      const stream = fs.createReadStream(null, { fd });
      stream.on('end', () => t.log('end', stream.bytesRead, stream.pos));
      stream.pipe(res);
    },
  });
});

test('keep-alive and pipelined requests on one connection', { skip }, async () => {
  const reqs = [get('/a'), get('/b'), get('/c', 'Connection: close\r\n')];
  await differential({ request: reqs, oneByOne: 60, handler: pipeFile(FILES[65537]), expect: { native: 3 } });
  // Mixed: a JSON response between two files.
  await differential({
    request: reqs, oneByOne: 60,
    handler: (req, res, t, i) => (i === 1 ? res.end('{"ok":true}') : pipeFile(FILES[4096])(req, res, t, i)),
    expect: { native: 2 },
  });
  // Pipelined: a response whose turn has not come when its file is read
  // stays stock ('notOnSocket'); which ones depends on timing, the bytes not.
  const before = files();
  await differential({ request: reqs, handler: pipeFile(FILES[65537]), timing: true, expect: null });
  const took = delta(before, files());
  assert.strictEqual(took.native + (took.stock.notOnSocket || 0), 3, JSON.stringify(took));
  // HTTP/1.0: the connection closes after the file.
  await differential({ request: 'GET / HTTP/1.0\r\n\r\n', handler: pipeFile(FILES[(1 << 20) + 3]) });
});

test('a client that stops reading: the rest waits for the socket and arrives intact', { skip }, async () => {
  await differential({ handler: pipeFile(BIG), pauseMs: 300, timeout: 15000, quietMs: 400, expect: { native: 1, waited: 1 } });
  // Keep-alive behind a large file.
  await differential({ request: [get('/1'), get('/2')], oneByOne: 700, handler: pipeFile(BIG), pauseMs: 200, timeout: 20000, quietMs: 800, expect: { native: 2, waited: 2 } });
});

test('AsyncLocalStorage: listeners run in the request\'s context after a wait, as in stock', { skip }, async () => {
  const als = new AsyncLocalStorage();
  await differential({
    pauseMs: 200, timeout: 15000, quietMs: 400, expect: { native: 1, waited: 1 },
    handler: (req, res, t, i) => als.run({ id: `req${i}` }, () => {
      res.on('finish', () => t.log('finish store', als.getStore()));
      const stream = fs.createReadStream(BIG);
      stream.on('end', () => t.log('end store', als.getStore()));
      res.setHeader('Content-Length', fs.statSync(BIG).size);
      stream.pipe(res);
    }),
  });
});

test('client disconnects mid-file: same events, the server keeps serving', { skip }, async () => {
  const { patched } = await differential({
    handler: pipeFile(BIG, { before: (stream, res) => res.on('close', () => stream.destroy()) }),
    pauseMs: 100, destroyAfter: 1 << 20, compareBytes: 1 << 20, timing: true, timeout: 10000, expect: { native: 1, waited: 1 },
  });
  assert.ok(patched.events.res0.includes('close') && !patched.events.res0.includes('finish'), JSON.stringify(patched.events));
  // Without anyone destroying the stream (a plain pipe): it stays open, as in stock.
  await differential({ handler: pipeFile(BIG), pauseMs: 100, destroyAfter: 1 << 20, compareBytes: 1 << 20, timing: true, timeout: 10000, expect: { native: 1, waited: 1 } });
});

// Logs the request socket's errors; with `reading` false, stops Node reading
// it (what net.Socket's pause() does to a handle it reads with onread).
function logSocketErrors(req, t, reading) {
  req.socket.on('error', (e) => t.log('socket error', e.code, e.syscall, e.message));
  if (!reading) {
    req.socket._handle.reading = false;
    req.socket._handle.readStop();
  }
}

test('client resets (RST) while the server waits on a full socket: same socket error as stock', { skip }, async () => {
  // Stock meets the pending error with its read when the socket is reading
  // ('read ECONNRESET'), else with its queued write ('write ECONNRESET').
  for (const reading of [true, false]) {
    const handler = (req, res, t, i) => {
      logSocketErrors(req, t, reading);
      pipeFile(BIG, { before: (stream, r) => r.on('close', () => stream.destroy()) })(req, res, t, i);
    };
    const syscall = reading ? 'read' : 'write';
    const scenario = {
      handler, resetAfter: 1 << 20, compareBytes: 1 << 20, timing: true, timeout: 10000, expect: { native: 1, waited: 1 },
      stockAs: (run) => run.logs[0]?.[2] === syscall,
    };
    const { stock } = await differential(scenario);
    assert.deepStrictEqual(stock.logs[0], ['socket error', 'ECONNRESET', syscall, `${syscall} ECONNRESET`]);
  }
});

test('client resets (RST) before the response starts: same socket error as stock, never EPIPE', { skip }, async () => {
  // The reset is pending on the socket when the file is piped. Stock's read
  // meets it when the socket is reading (the response closes before the
  // pipe), else its first write ('write ECONNRESET'). The native path must not
  // take it first: its write would consume it and leave Node 'write EPIPE'.
  for (const reading of [true, false]) {
    const handler = (req, res, t, i) => {
      logSocketErrors(req, t, reading);
      setTimeout(() => pipeFile(FILES[65537])(req, res, t, i), 100);
    };
    const expect = reading ? { stock: { responseClosed: 1 } } : { stock: { socketError: 1 } };
    const { stock } = await differential({ handler, resetAtOnce: true, quietMs: 400, timing: true, expect });
    if (reading) assert.deepStrictEqual(stock.events.res0, ['close', 'pipe']);
    else assert.deepStrictEqual(stock.logs, [['socket error', 'ECONNRESET', 'write', 'write ECONNRESET']]);
  }
});

test('res.destroy() and stream.destroy() mid-file stop the transfer as in stock', { skip }, async () => {
  await differential({
    handler: pipeFile(BIG, { before: (stream, res) => setTimeout(() => res.destroy(), 100) }),
    pauseMs: 300, timeout: 10000, compareBytes: 1 << 20, timing: true, expect: { native: 1, waited: 1 },
  });
  await differential({
    handler: pipeFile(BIG, { before: (stream, res, t) => setTimeout(() => { stream.destroy(); t.log('destroyed', res.writableEnded); }, 100) }),
    pauseMs: 300, timeout: 10000, quietMs: 300, compareBytes: 1 << 20, timing: true, expect: { native: 1, waited: 1 },
  });
});

test('a file truncated or deleted after it was opened', { skip }, async () => {
  const truncated = path.join(DIR, 'truncate-me.bin');
  // Truncated before the transfer starts: the length no longer matches, stock.
  await differential({
    handler: (req, res, t, i) => {
      fs.copyFileSync(FILES[(1 << 20) + 3], truncated);
      pipeFile(truncated, { before: (stream) => stream.on('open', () => fs.truncateSync(truncated, 5000)) })(req, res, t, i);
    },
    timeout: 3000, expect: { stock: { lengthMismatch: 1 } },
  });
  // Truncated mid-file, while the client is not reading: both send up to the
  // new end (past what the socket buffers held) and end the stream there.
  await differential({
    handler: (req, res, t, i) => {
      fs.copyFileSync(BIG, truncated);
      pipeFile(truncated, { before: () => setTimeout(() => fs.truncateSync(truncated, 20 << 20), 100) })(req, res, t, i);
    },
    pauseMs: 300, timeout: 15000, quietMs: 500, expect: { native: 1, waited: 1 },
  });
  const deleted = path.join(DIR, 'delete-me.bin');
  await differential({
    handler: (req, res, t, i) => {
      fs.copyFileSync(FILES[(1 << 20) + 3], deleted);
      pipeFile(deleted, { before: (stream) => stream.on('open', () => fs.unlinkSync(deleted)) })(req, res, t, i);
    },
  });
});

test('server.close() and a socket timeout during a transfer', { skip }, async () => {
  await differential({
    handler: pipeFile(BIG, { before: (stream, res) => res.socket.server.close() }),
    pauseMs: 200, timeout: 15000, quietMs: 400, expect: { native: 1, waited: 1 },
  });
  // The client reads nothing for longer than the timeout: Node times the socket out in both.
  await differential({
    setup: (server, t) => server.setTimeout(150, (socket) => { t.log('timeout'); socket.destroy(); }),
    handler: pipeFile(BIG), pauseMs: 600, timeout: 10000, compareBytes: 1 << 20, timing: true, expect: { native: 1, waited: 1 },
  });
});

test('errors when opening: the stream errors before any transfer, as in stock', { skip }, async () => {
  await differential({
    handler: (req, res, t) => {
      res.setHeader('Content-Length', 10);
      const stream = fs.createReadStream(path.join(DIR, 'missing.bin'));
      stream.on('error', (err) => { t.log('error', err.code); res.statusCode = 404; res.removeHeader('Content-Length'); res.end('missing'); });
      stream.pipe(res);
    },
    expect: { native: 0 },
  });
});

test('responses without a body or without Content-Length stay stock, counted by reason', { skip }, async () => {
  const file = FILES[4096];
  await differential({ request: `HEAD / HTTP/1.1\r\nHost: x\r\n\r\n`, handler: pipeFile(file), expect: { stock: { noBody: 1 } } });
  await differential({ handler: (req, res, t, i) => { res.statusCode = 304; pipeFile(file)(req, res, t, i); }, expect: { stock: { noBody: 1 } } });
  await differential({
    handler: (req, res) => fs.createReadStream(file).pipe(res), expect: { stock: { chunked: 1 } },
  });
  await differential({ handler: pipeFile(file, { headers: { 'Content-Length': 10 } }), expect: { stock: { lengthMismatch: 1 } }, quietMs: 100 });
  await differential({ handler: pipeFile(file, { start: 10, end: 20, headers: { 'Content-Length': 10 } }), expect: { stock: { lengthMismatch: 1 } } });
});

test('anything else that reads the stream or writes the response stays stock', { skip }, async () => {
  const file = FILES[65537];
  const { stock } = await differential({
    handler: pipeFile(file, { before: (stream, res, t) => { let n = 0; stream.on('data', (d) => { n += d.length; }); stream.on('end', () => t.log('data bytes', n)); } }),
    expect: { stock: { otherConsumer: 1 } },
  });
  // A 'data' listener added after pipe(), before the file is open.
  await differential({
    handler: (req, res, t) => {
      res.setHeader('Content-Length', 65537);
      const stream = fs.createReadStream(file);
      stream.pipe(res);
      let n = 0;
      stream.on('data', (d) => { n += d.length; });
      stream.on('end', () => t.log('late data bytes', n));
    },
    expect: { stock: { otherConsumer: 1 } },
  });
  assert.ok(stock.logs.some(([l, n]) => l === 'data bytes' && n === 65537));
  // A compression-style middleware that wraps write/end on the response.
  await differential({
    handler: pipeFile(file, {
      before: (stream, res, t) => {
        const { write, end } = res;
        let seen = 0;
        res.write = function (chunk, ...rest) { seen += chunk.length; return write.call(this, chunk, ...rest); };
        res.end = function (...args) { t.log('wrapped write saw', seen); return end.apply(this, args); };
      },
    }),
    expect: { stock: { replacedResponseMethods: 1 } },
  });
  await differential({ handler: pipeFile(file, { options: { encoding: 'latin1' } }), expect: { stock: { streamState: 1 } } });
  // Not a regular file: /dev/zero has no end; sendfile is not even tried.
  await differential({
    handler: (req, res) => { res.setHeader('Content-Length', 100000); fs.createReadStream('/dev/zero', { end: 99999 }).pipe(res); },
    expect: { stock: { emptyOrSpecialFile: 1 } },
  });
  // A second destination: stock for both.
  await differential({
    handler: pipeFile(file, { before: (stream) => stream.pipe(new (require('stream').Writable)({ write(c, e, cb) { cb(); } })) }),
    expect: { stock: { otherConsumer: 1 } },
  });
  // A custom fs implementation.
  await differential({ handler: pipeFile(file, { options: { fs: { open: fs.open, read: fs.read, close: fs.close } } }), expect: { stock: { customStream: 1 } } });
});

test('TLS sockets stay stock', { skip }, async () => {
  await differential({ tls: true, handler: pipeFile(FILES[65537]), expect: { stock: { tls: 1 } } });
});

test('writeHead before pipe, and headers set by a wrapped writeHead', { skip }, async () => {
  const file = FILES[65536];
  await differential({
    handler: (req, res) => {
      res.writeHead(200, { 'Content-Length': 65536, 'X-Early': '1' });
      fs.createReadStream(file).pipe(res);
    },
  });
  await differential({
    handler: pipeFile(file, {
      before: (stream, res) => {
        const writeHead = res.writeHead;
        res.writeHead = function (...args) { this.setHeader('X-Late', 'set in writeHead'); return writeHead.apply(this, args); };
      },
    }),
  });
});

test('express.static, res.sendFile and res.download (send), Express 4 and 5', { skip }, async () => {
  for (const name of ['express', 'express4']) {
    const express = require(name);
    const app = () => {
      const a = express();
      a.set('env', 'test'); // no error logging for the 416 scenarios
      a.use('/static', express.static(DIR));
      a.get('/send', (req, res) => res.sendFile(FILES[65537], (err) => err && res.status(500).end()));
      a.get('/download', (req, res) => res.download(FILES[4096], 'x.bin'));
      return a;
    };
    // send streams an empty file as the range 0-0 with Content-Length 0: stock.
    await differential({ app, request: [get('/static/f1048579.bin'), get('/send'), get('/download'), get('/static/f0.bin')], oneByOne: 60, expect: { native: 3, stock: { lengthMismatch: 1 } } });
    await differential({ app, request: get('/static/f1048579.bin', 'Range: bytes=100-60000\r\n') });
    // send answers several ranges with the whole file (200).
    await differential({ app, request: get('/static/f1048579.bin', 'Range: bytes=100-60000,70000-80000\r\n') });
    await differential({ app, request: get('/static/f65537.bin', 'Range: bytes=999999-\r\n'), expect: { native: 0 } });
    await differential({ app, request: [get('/static/f4096.bin'), `HEAD /static/f4096.bin HTTP/1.1\r\nHost: x\r\n\r\n`], expect: { native: 1 } });
  }
});

test('send itself: its events, and 304, 412, 416 without a body', { skip }, async () => {
  const send = require('send');
  const handler = (req, res, t) => {
    const stream = send(req, path.basename(req.url), { root: DIR });
    for (const name of ['headers', 'stream', 'file', 'end', 'directory']) {
      stream.on(name, (arg) => t.log(`send:${name}`, name === 'headers' ? Object.keys(arg) : undefined));
    }
    // With an 'error' listener send leaves the answer to the app.
    stream.on('error', (err) => { t.log('send:error', err.status); res.statusCode = err.status; res.end(err.message); });
    stream.pipe(res);
  };
  await differential({ handler, request: get('/f1048579.bin') });
  await differential({ handler, request: get('/f1048579.bin', 'Range: bytes=0-99\r\n') });
  await differential({ handler, request: get('/f65537.bin', 'If-None-Match: *\r\n'), expect: { native: 0 } });
  await differential({ handler, request: get('/f65537.bin', 'If-Match: "nope"\r\n'), expect: { native: 0 } });
  await differential({ handler, request: get('/f65537.bin', 'Range: bytes=70000-\r\n'), expect: { native: 0 } });
  await differential({ handler, request: `HEAD /f65537.bin HTTP/1.1\r\nHost: x\r\n\r\n`, expect: { native: 0 } });
});

test('@fastify/static and koa-static', { skip }, async () => {
  // Fastify: its server is made by fastify itself; the scenario's app is its handler.
  const fastifyApp = () => {
    const app = require('fastify')();
    app.register(require('@fastify/static'), { root: DIR });
    return app;
  };
  for (const request of [[get('/f1048579.bin'), get('/f4096.bin')], [get('/f65537.bin', 'Range: bytes=5-500\r\n')]]) {
    const counts = [];
    for (const round of ['stock', 'patched']) {
      if (round === 'stock') fastpath.uninstall(); else fastpath.install();
      const before = round === 'patched' ? files() : null;
      const app = fastifyApp();
      await app.ready();
      const result = await runOnce({ app: () => app.routing, request, oneByOne: 60 });
      counts.push({ result, took: before && delta(before, files()) });
      await app.close();
    }
    const [stock, patched] = counts;
    assert.strictEqual(patched.result.sha256, stock.result.sha256);
    assert.strictEqual(patched.result.length, stock.result.length);
    assert.deepStrictEqual(patched.result.events, stock.result.events);
    assert.strictEqual(patched.took.native, request.length, JSON.stringify(patched.took));
  }
  const Koa = require('koa');
  const koaApp = () => {
    const app = new Koa();
    app.use(require('koa-static')(DIR));
    return app.callback();
  };
  await differential({ app: koaApp, request: [get('/f1048579.bin'), get('/f4096.bin'), get('/missing.bin')], oneByOne: 60, expect: { native: 2 } });
});

// Closing the sent file (lib/file/close-without-threadpool.js): the close
// callback runs where a threadpool completion runs at the earliest, so the
// stream's 'close' comes after what 'end' queued (ticks, immediates), in the
// context of the request, with the errors of fs.close.
const closeTypes = [];
const closeHook = require('async_hooks').createHook({ init(id, type) { if (type === 'HttpFastpathClose') closeTypes.push(type); } });

test('the sent file is closed without the threadpool: same order, context and errors as stock', { skip }, async () => {
  const als = new AsyncLocalStorage();
  const ordered = (file) => (req, res, t, i) => als.run({ id: `req${i}` }, () => {
    res.setHeader('Content-Length', fs.statSync(file).size);
    const stream = fs.createReadStream(file);
    stream.on('end', () => {
      t.log(`end ${i}`, als.getStore());
      process.nextTick(() => t.log(`tick after end ${i}`));
      setImmediate(() => t.log(`immediate after end ${i}`, als.getStore()));
    });
    stream.on('close', () => t.log(`close ${i}`, als.getStore(), stream.destroyed));
    res.on('finish', () => t.log(`finish ${i}`));
    res.on('close', () => t.log(`res close ${i}`));
    stream.pipe(res);
  });
  closeHook.enable();
  try {
    for (const size of [4096, (1 << 20) + 3]) {
      closeTypes.length = 0;
      await differential({ request: [get('/a'), get('/b'), get('/c')], oneByOne: 60, handler: ordered(FILES[size]), expect: { native: 3 } });
      // The patched run closed its three files without the threadpool (stock never does).
      assert.deepStrictEqual(closeTypes.length, 3, closeTypes.join());
    }
  } finally {
    closeHook.disable();
  }
  // The descriptor was closed behind the stream's back: fs.close's EBADF, as an 'error' before 'close'.
  await differential({
    handler: (req, res, t) => {
      res.setHeader('Content-Length', 4096);
      const stream = fs.createReadStream(FILES[4096]);
      stream.on('end', () => fs.closeSync(stream.fd));
      stream.on('error', (err) => t.log('error', err.message, err.code, err.errno, err.syscall, Object.keys(err)));
      stream.on('close', () => t.log('close'));
      stream.pipe(res);
    },
  });
});

test('a pending close keeps the process alive until the stream closes, as in stock', { skip }, async () => {
  const { spawn } = require('child_process');
  // A server process whose socket and server are unref'd once it answers:
  // only the file's close can keep its loop running (the client is this process).
  const code = `
    const http = require('http'); const fs = require('fs');
    const seen = [];
    process.on('exit', () => console.log(JSON.stringify(seen)));
    const server = http.createServer((req, res) => {
      req.socket.unref();
      server.unref();
      res.setHeader('Content-Length', 4096);
      const stream = fs.createReadStream(${JSON.stringify(FILES[4096])});
      stream.on('end', () => seen.push('end')).on('close', () => seen.push('close'));
      stream.pipe(res);
    }).listen(0, '127.0.0.1', () => console.log(server.address().port));
  `;
  const run = (args) => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, '-e', code]);
    let out = '';
    let client = null;
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      if (client === null && out.includes('\n')) {
        client = net.connect(Number(out.split('\n')[0]), '127.0.0.1', () => client.write(get('/')));
        client.on('error', () => {});
      }
    });
    const timer = setTimeout(() => { child.kill(); reject(new Error(`no exit: ${out}`)); }, 10000);
    child.on('close', () => { clearTimeout(timer); client.destroy(); resolve(out.split('\n')[1]); });
  });
  const stock = await run([]);
  assert.deepStrictEqual(JSON.parse(stock), ['end', 'close']);
  assert.strictEqual(await run(['-r', path.join(__dirname, '..')]), stock);
});

test('a worker that exits in a response\'s finish handler, its file\'s close still queued, exits as in stock', { skip }, () => {
  // The queued close asks for a turn of the worker's loop; Node runs the loop
  // once more while it tears the worker down, when JS can no longer run.
  // That turn must give up, not ask again forever (which kept the worker,
  // and the process with it, from ever exiting).
  const fixture = path.join(__dirname, 'fixtures', 'worker-exit-in-finish.js');
  const run = (preload) => {
    const r = require('child_process').spawnSync(process.execPath, [fixture, FILES[65537], ...(preload ? [preload] : [])], { encoding: 'utf8', timeout: 120_000 });
    assert.strictEqual(r.error, undefined, `the process ended (${r.error && r.error.code})`);
    assert.strictEqual(r.stderr, '');
    return JSON.parse(r.stdout);
  };
  const stock = run(null);
  const patched = run(path.join(__dirname, '..'));
  assert.deepStrictEqual(stock, { files: null, exitCode: 3 });
  assert.deepStrictEqual(patched, { files: { native: 1, waited: 0, handedBack: {}, stock: {} }, exitCode: 3 });
});

test('a worker terminated mid-transfer closes its transfers; another worker serves on', { skip }, async () => {
  const { Worker } = require('worker_threads');
  const code = `
    const { parentPort, workerData } = require('worker_threads');
    const fastpath = require(${JSON.stringify(path.join(__dirname, '..'))});
    const http = require('http');
    const fs = require('fs');
    const server = http.createServer((req, res) => {
      res.setHeader('Content-Length', fs.statSync(workerData.file).size);
      fs.createReadStream(workerData.file).pipe(res);
      const check = setInterval(() => {
        const files = fastpath.status().files;
        if (files.native === 1 && (files.waited === 1 || !workerData.wait)) { clearInterval(check); parentPort.postMessage(files); }
      }, 20);
    }).listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
  `;
  const message = (worker) => new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  // A client in this thread that does not read: the worker's transfer waits on the socket.
  const stuck = new Worker(code, { eval: true, workerData: { file: BIG, wait: true } });
  const port = await message(stuck);
  const client = net.connect(port, '127.0.0.1', () => client.write(get('/')));
  client.pause();
  const closed = new Promise((resolve) => client.once('close', resolve));
  client.on('error', () => {});
  assert.deepStrictEqual(await message(stuck), { native: 1, waited: 1, handedBack: {}, stock: {} });
  assert.strictEqual(await stuck.terminate(), 1);
  // The worker's environment closed the transfer's duplicated socket, so the
  // connection closes (the client reads what was sent, then sees the end).
  client.resume();
  const timeout = new Promise((resolve) => setTimeout(resolve, 3000, 'still open'));
  assert.notStrictEqual(await Promise.race([closed, timeout]), 'still open');
  // And another worker serves files on.
  const next = new Worker(code, { eval: true, workerData: { file: FILES[65537], wait: false } });
  const nextPort = await message(next);
  const body = await new Promise((resolve) => http.get({ port: nextPort, host: '127.0.0.1' }, (res) => {
    const chunks = [];
    res.on('data', (d) => chunks.push(d)).on('end', () => resolve(Buffer.concat(chunks)));
  }));
  assert.ok(body.equals(fs.readFileSync(FILES[65537])));
  assert.deepStrictEqual(await message(next), { native: 1, waited: 0, handedBack: {}, stock: {} });
  assert.strictEqual(await next.terminate(), 1);
});
