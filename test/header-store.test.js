'use strict';
// The header store stays a fast-mode object through removeHeader: V8 turns
// an object into a hash table when any property but the last one added is
// deleted (helmet's removal of express's X-Powered-By, compression's of
// Content-Length). The bytes are the differential suites' business
// (scenarios.js); this checks the shape, with V8's own %HasFastProperties in a
// child process started with --allow-natives-syntax.

const test = require('node:test');
const assert = require('node:assert');
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');

const probe = `
  const http = require('http');
  const kOutHeaders = Object.getOwnPropertySymbols(new http.OutgoingMessage()).find((s) => s.description === 'kOutHeaders');
  function response() { return new http.ServerResponse({ method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} }); }
  const shapes = {};
  const first = response();
  first.setHeader('X-Powered-By', 'Express');
  for (let i = 0; i < 12; i++) first.setHeader('X-Sec-' + i, 'v');
  first.removeHeader('X-Powered-By');
  shapes.firstOfMany = %HasFastProperties(first[kOutHeaders]);
  first.removeHeader('x-sec-4');
  first.setHeader('Content-Type', 'text/plain');
  shapes.thenMiddle = %HasFastProperties(first[kOutHeaders]);
  shapes.names = first.getHeaderNames().join(',');
  const absent = response();
  absent.setHeader('A', '1'); absent.setHeader('B', '2');
  const store = absent[kOutHeaders];
  absent.removeHeader('C');
  shapes.absentKeepsStore = absent[kOutHeaders] === store;
  console.log(JSON.stringify(shapes));
`;

function run(preload) {
  const args = ['--allow-natives-syntax', ...(preload ? ['-r', root] : []), '-e', probe];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' }));
}

test('removeHeader keeps the header store fast and its order', () => {
  const stock = run(false);
  const patched = run(true);
  assert.deepStrictEqual(patched, {
    firstOfMany: true, thenMiddle: true, absentKeepsStore: true,
    names: stock.names, // the same names in the same order as stock
  });
  assert.strictEqual(stock.names, ['x-sec-0', 'x-sec-1', 'x-sec-2', 'x-sec-3', 'x-sec-5', 'x-sec-6', 'x-sec-7', 'x-sec-8',
    'x-sec-9', 'x-sec-10', 'x-sec-11', 'content-type'].join(','));
});
