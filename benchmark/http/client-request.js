'use strict';
// Outgoing requests per second through a keep-alive agent, against a raw
// `net` peer in a child process (fixtures/raw-http-peer.js) that answers
// with a prebuilt response. The measured process is the client.
const http = require('http');
const { fork } = require('child_process');
const path = require('path');
const common = require('../common/bench');

const bench = common.createBenchmark(main, { method: ['GET', 'POST'], headers: [0, 5], c: [50] });

function main({ method, headers, c }) {
  const peer = fork(path.join(__dirname, '..', 'fixtures', 'raw-http-peer.js'));
  peer.once('message', (port) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: c });
    const extra = {};
    for (let i = 0; i < headers; i++) extra[`X-Header-${i}`] = `value-${i}`;
    const deadline = Date.now() + bench.duration * 1000;
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    let done = 0;
    let active = c;
    const one = () => {
      if (Date.now() >= deadline) {
        if (--active === 0) finish();
        return;
      }
      const req = http.request({ host: '127.0.0.1', port, method, agent, path: '/', headers: extra }, (res) => {
        res.resume();
        res.on('end', () => { done++; one(); });
      });
      req.end(method === 'POST' ? 'data' : undefined);
    };
    function finish() {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const cpu = process.cpuUsage(cpuStart);
      bench.end(done / seconds, { requests: done, seconds, cpuUsPerReq: (cpu.user + cpu.system) / done });
      agent.destroy();
      peer.disconnect();
    }
    for (let i = 0; i < c; i++) one();
  });
}
