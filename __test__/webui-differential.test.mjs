/**
 * Differential test of the webui adapters: the native `adaptACPMessages` /
 * `adaptJSONLMessages` against the plain-JS baseline (baseline/webui.js) on seeded random
 * inputs. Both sides get the very same input (the adapters never modify it); the rows
 * must have the same keys in the same order and `Object.is`-equal values, so strings
 * match exactly and passed-through objects are the same objects. Transcripts with only
 * valid dates and transcripts with invalid ones (an inconsistent comparator, where only
 * V8's exact TimSort steps give the same order) are separate runs.
 *
 * Reproduce one case: WEBUI_SEED=<seed> node --test __test__/webui-differential.test.mjs
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import baseline from '../baseline/webui.js';
import native from '../index.js';
import { randomACPCase, randomTranscript } from './random-webui.mjs';

const CASES = Number(process.env.WEBUI_CASES ?? 2000);

function seeds(first) {
  if (process.env.WEBUI_SEED !== undefined) return [Number(process.env.WEBUI_SEED)];
  return Array.from({ length: CASES }, (_, i) => (first + i) >>> 0);
}

function outcome(run) {
  try {
    return { rows: run() };
  } catch (error) {
    return { error };
  }
}

/** Why `actual` differs from `expected`, or null. */
function difference(actual, expected) {
  if (expected.error || actual.error) {
    if (!expected.error || !actual.error) return `threw: native ${inspect(actual.error)}, baseline ${inspect(expected.error)}`;
    if (actual.error.constructor !== expected.error.constructor || actual.error.message !== expected.error.message) {
      return `errors differ: ${actual.error} vs ${expected.error}`;
    }
    return null;
  }
  if (actual.rows.length !== expected.rows.length) return `lengths ${actual.rows.length} vs ${expected.rows.length}`;
  for (let i = 0; i < expected.rows.length; i++) {
    const [a, e] = [actual.rows[i], expected.rows[i]];
    const [ak, ek] = [Object.keys(a), Object.keys(e)];
    if (ak.join() !== ek.join()) return `row ${i} keys ${ak} vs ${ek}`;
    for (const key of ek) {
      if (!Object.is(a[key], e[key])) return `row ${i}.${key}: ${inspect(a[key])} vs ${inspect(e[key])}`;
    }
  }
  return null;
}

function check(name, firstSeed, makeInput, run) {
  test(name, () => {
    const failures = [];
    let rows = 0;
    for (const seed of seeds(firstSeed)) {
      const input = makeInput(seed);
      const expected = outcome(() => run(baseline, input));
      const why = difference(outcome(() => run(native, input)), expected);
      if (why) failures.push(`seed ${seed}: ${why}`);
      rows += expected.rows?.length ?? 0;
      if (failures.length >= 5) break;
    }
    assert.deepEqual(failures, []);
    assert.ok(process.env.WEBUI_SEED !== undefined || rows > CASES, 'the cases produced rows');
  });
}

const now = 1_715_000_000_000;
check('adaptACPMessages matches the baseline', 0xac900000, randomACPCase, (side, input) => side.adaptACPMessages(input, { now }));
check('adaptJSONLMessages matches the baseline (valid dates)', 0x15010000, (seed) => randomTranscript(seed), (side, input) => side.adaptJSONLMessages(input));
check(
  'adaptJSONLMessages matches the baseline (some invalid dates: V8 sort order)',
  0x15020000,
  (seed) => randomTranscript(seed, { invalidRate: 0.15 }),
  (side, input) => side.adaptJSONLMessages(input),
);
