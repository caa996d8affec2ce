'use strict';
// HTTP_FASTPATH=verify: heads rendered both ways, stock bytes written, a
// difference reported once per distinct case.

const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const http = require('http');
const { spawnSync } = require('child_process');
const { makeVerifyingStoreHeader } = require('../lib/response/verify');

test('verify mode: every scenario renders identically and only _storeHeader is patched', () => {
  const r = spawnSync(process.execPath, [path.join(__dirname, 'fixtures', 'verify-run.js')], { encoding: 'utf8', timeout: 120000 });
  assert.strictEqual(r.status, 0, r.stderr);
  const { status, warnings } = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.strictEqual(status.mode, 'verify');
  assert.deepStrictEqual(status.patched, ['OutgoingMessage.prototype._storeHeader']);
  assert.ok(status.verified.checked > 50, `checked ${status.verified.checked}`);
  assert.strictEqual(status.verified.differences, 0, warnings.join('\n'));
  assert.deepStrictEqual(warnings, []);
});

test('verify mode reports a difference once per distinct case and keeps stock output', () => {
  const original = http.OutgoingMessage.prototype._storeHeader;
  // A broken renderer: right fields, wrong header text.
  const broken = (msg, firstLine) => { msg._header = firstLine + 'X-Broken: 1\r\n\r\n'; msg._headerSent = false; return true; };
  const seen = [];
  const verifying = makeVerifyingStoreHeader(broken, original, { onDifference: (d) => seen.push(d) });
  for (let i = 0; i < 3; i++) {
    const msg = new http.OutgoingMessage();
    msg._storeHeader = verifying;
    msg._storeHeader('HTTP/1.1 200 OK\r\n', null);
    assert.strictEqual(msg._header.includes('X-Broken'), false, 'stock result kept');
  }
  assert.strictEqual(seen.length, 1);
  assert.ok(seen[0].fields.includes('_header'), seen[0].fields.join());
  assert.deepStrictEqual(verifying.stats(), { checked: 3, differences: 1 });
});
