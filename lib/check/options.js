'use strict';
// `http-fastpath check [options] -- <command that starts the app>`: the
// command line, read into one options object, or an Error whose message is
// the one line the user sees.

const fs = require('fs');

const USAGE = `usage: http-fastpath check [options] -- <command that starts your app>

Starts the app twice, stock and with http-fastpath preloaded (NODE_OPTIONS=--require), each on a
free port it passes in PORT, compares every listed route's raw responses byte for byte, then loads
each route against both, interleaved, and reports req/s, server CPU per request and resident memory.

  --url PATH             a GET route to check (repeatable; default /)
  --routes FILE          routes, one a line: "METHOD PATH" or a JSON object
                         {"method", "path", "headers", "body"}; # starts a comment
  --mask NAME            a response header whose value may differ (repeatable; Date always is)
  --port N               the stock app's port (the preloaded one gets N+1); default: free ports
  --rounds N             interleaved load rounds per route (default 3)
  --duration S           seconds of load per round and app (default 2)
  --warmup S             seconds of load per route and app before the rounds (default 1)
  --connections N        concurrent connections of the load (default 50)
  --startup-timeout S    how long an app may take to answer (default 30)
  --request-timeout S    how long one compared request may take (default 10)
  --json                 print the results as JSON instead of a Markdown table

Exit code: 0 all bytes identical, 1 a difference or a crash, 2 bad input or a timeout.`;

function positive(name, text, integer) {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) throw new Error(`${name} wants a positive ${integer ? 'integer' : 'number'}, not ${JSON.stringify(text)}`);
  return n;
}

function route(method, path, headers = {}, body) {
  if (typeof method !== 'string' || !/^[A-Z]+$/.test(method)) throw new Error(`bad method ${JSON.stringify(method)}`);
  if (typeof path !== 'string' || !path.startsWith('/')) throw new Error(`a route's path starts with /: ${JSON.stringify(path)}`);
  if (body !== undefined && typeof body !== 'string') body = JSON.stringify(body);
  return { method, path, headers, body, label: `${method} ${path}` };
}

function readRoutes(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read --routes ${file}: ${err.message}`);
  }
  const routes = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    try {
      if (line.startsWith('{')) {
        const r = JSON.parse(line);
        routes.push(route(r.method ?? 'GET', r.path, r.headers ?? {}, r.body));
      } else {
        const [method, path, ...rest] = line.split(/\s+/);
        if (rest.length) throw new Error('write a route with headers or a body as a JSON object');
        routes.push(route(method, path));
      }
    } catch (err) {
      throw new Error(`${file}:${i + 1}: ${err.message}`);
    }
  });
  return routes;
}

function parse(argv) {
  if (argv[0] !== 'check') throw new Error(argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' ? USAGE : `unknown command ${JSON.stringify(argv[0])}\n${USAGE}`);
  const o = {
    routes: [], mask: ['date'], port: null, rounds: 3, duration: 2, warmup: 1, connections: 50,
    startupTimeout: 30, requestTimeout: 10, json: false, command: [],
  };
  let i = 1;
  const value = (name) => {
    if (i + 1 >= argv.length) throw new Error(`${name} wants a value`);
    return argv[++i];
  };
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { o.command = argv.slice(i + 1); break; }
    if (a === '--url') o.routes.push(route('GET', value(a)));
    else if (a === '--routes') o.routes.push(...readRoutes(value(a)));
    else if (a === '--mask') o.mask.push(value(a).toLowerCase());
    else if (a === '--port') o.port = positive(a, value(a), true);
    else if (a === '--rounds') o.rounds = positive(a, value(a), true);
    else if (a === '--duration') o.duration = positive(a, value(a), true);
    else if (a === '--warmup') o.warmup = positive(a, value(a), true);
    else if (a === '--connections') o.connections = positive(a, value(a), true);
    else if (a === '--startup-timeout') o.startupTimeout = positive(a, value(a), false);
    else if (a === '--request-timeout') o.requestTimeout = positive(a, value(a), false);
    else if (a === '--json') o.json = true;
    else if (a === '--help' || a === '-h') throw new Error(USAGE);
    else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  if (o.command.length === 0) throw new Error(`no command to start the app: put it after --, as in: http-fastpath check --url / -- node server.js`);
  if (o.routes.length === 0) o.routes.push(route('GET', '/'));
  return o;
}

module.exports = { parse, USAGE };
