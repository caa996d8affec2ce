'use strict';
// Every scenario in helpers/scenarios.js, stock vs patched: identical bytes,
// events, logged properties and errors, and no more socket writes.

process.env.HTTP_FASTPATH_STATS = '1';
const test = require('node:test');
const assert = require('node:assert');
const fastpath = require('..');
const { compare } = require('./helpers/differential');
const { scenarios } = require('./helpers/scenarios');

// A part that a probe left stock on this Node (status().parts says why:
// docs/node-versions.md) counts nothing; its bytes are still compared.
const PART_OF_STAT = { end: 'end', storeHeader: 'head' };
function partOn(stat) {
  const part = PART_OF_STAT[stat.split('.')[0]];
  return part === undefined || fastpath.status().parts[part].on;
}

test('the shim is active', () => {
  const s = fastpath.status();
  assert.strictEqual(s.active, true, JSON.stringify(s));
  assert.strictEqual(s.native.loaded, true, JSON.stringify(s.native));
});

for (const scenario of scenarios) {
  test(scenario.name, async () => {
    fastpath.resetStats();
    const { stock, patched } = await compare(scenario);
    const stats = fastpath.status().stats;
    assert.strictEqual(patched.bytes, stock.bytes, 'bytes on the wire');
    assert.deepStrictEqual(patched.events, stock.events, 'response events');
    assert.deepStrictEqual(patched.logs, stock.logs, 'logged state and errors');
    assert.ok(stock.bytes.length > 0 || scenario.noBytes || scenario.noBytesOn?.includes(process.versions.node), 'the client received something');
    assert.ok(patched.writes <= stock.writes, `socket.write calls: ${patched.writes} > ${stock.writes}`);
    assert.ok(patched.dispatches <= stock.dispatches, `writes to the handle: ${patched.dispatches} > ${stock.dispatches}`);
    if (scenario.fast && partOn(scenario.fast)) assert.ok(stats[scenario.fast] > 0, `expected ${scenario.fast} in ${JSON.stringify(stats)}`);
  });
}
