'use strict';
// A seeded differential fuzz run (test/fuzz/): random response programs on
// stock and patched Node must give identical bytes, errors and events.
// FUZZ_SEED and FUZZ_CASES override the defaults.

const test = require('node:test');
const assert = require('node:assert');
const { fuzz } = require('./fuzz/differential-fuzz');

const seed = Number(process.env.FUZZ_SEED || 20261202);
const cases = Number(process.env.FUZZ_CASES || 2000);

test(`differential fuzz: ${cases} cases from seed ${seed}`, async () => {
  const result = await fuzz({ cases, seed });
  assert.strictEqual(result.cases, cases);
  const first = result.differences[0];
  assert.strictEqual(result.differences.length, 0,
    first && `seed ${first.seed} differs:\n${JSON.stringify({ ops: first.ops, stock: first.stock, patched: first.patched }, null, 1).slice(0, 4000)}`);
});
