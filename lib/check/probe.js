'use strict';
// Preloaded into both runs of `http-fastpath check` (NODE_OPTIONS): every
// 250 ms, and at exit, writes this process's CPU, resident memory, whether
// it serves on a TCP port, and, where the package is loaded, its status(),
// to a file of its own in HTTP_FASTPATH_CHECK_DIR. Loads nothing else.

const fs = require('fs');
const path = require('path');

const dir = process.env.HTTP_FASTPATH_CHECK_DIR;
if (dir) {
  const file = path.join(dir, `${process.pid}.json`);
  const root = path.join(__dirname, '..', '..', 'lib', 'index.js');
  const write = () => {
    const fastpath = require.cache[root]?.exports;
    const report = {
      pid: process.pid,
      listening: process.getActiveResourcesInfo().includes('TCPServerWrap'),
      cpu: process.cpuUsage(),
      rss: process.memoryUsage.rss(),
      status: fastpath ? fastpath.status() : null,
    };
    try {
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(report));
      fs.renameSync(`${file}.tmp`, file);
    } catch {
      // the check has gone
    }
  };
  setInterval(write, 250).unref();
  process.on('exit', write);
}
