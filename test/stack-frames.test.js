'use strict';
// The stacks an app sees name the same functions, receivers included, as
// stock's: errors thrown from listeners on a request and a response (of a
// plain server and of Express 5 and 4 apps bound by the package), from a
// middleware, from express.json() on a bad body, from Node's own checks, and
// from 'finish'/'close' listeners. Two processes run the same app
// (test/fixtures/stack-frames-app.js), stock and preloaded. The differences
// docs/known-differences.md lists are the only ones allowed, each applied
// exactly: routing frames (Express's router or the package's dispatch) are
// left out of both, and a method the package wraps adds one frame of the
// same name directly under Node's.

const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.join(__dirname, '..');
const app = path.join(__dirname, 'fixtures', 'stack-frames-app.js');

function run(preload) {
  const args = preload ? ['-r', root, app] : [app];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 30000, env: { ...process.env, FASTPATH_ROOT: preload ? root : '', HTTP_FASTPATH_STATS: '' } });
  assert.strictEqual(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const stock = run(false);
const patched = run(true);

// Frames are `name|where`; see the fixture.
const names = (frames) => frames.filter((f) => !f.endsWith('|routing')).map((f) => f.split('|')[0]);

function withoutWrappers(frames) {
  const out = [];
  let wrappers = 0;
  for (const frame of frames) {
    const [name, where] = frame.split('|');
    if (where === 'pkg' && out.length > 0 && out[out.length - 1] === `${name}|node`) wrappers++;
    else out.push(frame);
  }
  return { frames: out, wrappers };
}

test('the preloaded run bound both Express apps, and both runs saw every scenario', () => {
  assert.strictEqual(stock.bound, 0);
  assert.strictEqual(patched.bound, 3);
  assert.deepStrictEqual(Object.keys(patched).sort(), Object.keys(stock).sort());
  assert.ok(Object.keys(stock).length >= 30, Object.keys(stock).join(', '));
});

test('util.inspect names a bound request and response as stock does', () => {
  for (const prefix of ['plain', 'express5', 'express4']) {
    assert.deepStrictEqual(patched[`${prefix} inspect`], stock[`${prefix} inspect`]);
    assert.deepStrictEqual(stock[`${prefix} inspect`], ['IncomingMessage', 'ServerResponse']);
  }
});

for (const label of Object.keys(stock).filter((k) => Array.isArray(stock[k]))) {
  test(`frames: ${label}`, () => {
    const { frames, wrappers } = withoutWrappers(patched[label]);
    // Node's setHeader is the one wrapped method these scenarios reach with an error; beside
    // an 'upgrade' listener, the parser's callback is wrapped at the bottom of a sync stack.
    assert.strictEqual(wrappers, / setHeader |^upgrades /.test(label) ? 1 : 0, patched[label].join('\n'));
    assert.deepStrictEqual(names(frames), names(stock[label]));
  });
}

test('a frame through a bound request or response is named after Node\'s class', () => {
  for (const prefix of ['express5', 'express4']) {
    assert.strictEqual(patched[`${prefix} req custom`][0], 'IncomingMessage.<anonymous>|app');
    assert.strictEqual(patched[`${prefix} res custom`][0], 'ServerResponse.<anonymous>|app');
    assert.ok(patched[`${prefix} bad json`].includes('IncomingMessage.onEnd|dep'), patched[`${prefix} bad json`].join('\n'));
  }
});
