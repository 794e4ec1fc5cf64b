/**
 * Differential test: the native addon against the plain-JS baseline (baseline/chunks.js).
 *
 * Every random case is applied to two structurally identical but distinct inputs, one per
 * implementation, with the very same event objects. After every event the two trees must
 * agree in JSON, in structure, in key order, in which objects were kept and which were
 * replaced, and in holding the event's payloads by reference.
 *
 * Reproduce one case:   DIFF_SEED=<seed> node --test __test__/differential.test.mjs
 * Change the case count: DIFF_CASES=<n> …
 * Check the harness without the addon (baseline on both sides): DIFF_AGAINST=baseline …
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import baseline from '../baseline/chunks.js';
import { randomStreamCase, randomSystemCase } from './random-streams.mjs';

const selfCheck = process.env.DIFF_AGAINST === 'baseline';
const native = selfCheck ? baseline : (await import('agent-chunks')).default;
const sideName = selfCheck ? 'baseline (self-check)' : 'native';

const FIRST_SEED = 0x5eed0000;
const STREAM_CASES = Number(process.env.DIFF_CASES ?? 10_000);
const SYSTEM_CASES = Math.max(1, Math.round(STREAM_CASES / 4));
const MAX_REPORTED_FAILURES = 5;

function seedsFor(count) {
  if (process.env.DIFF_SEED !== undefined) return [Number(process.env.DIFF_SEED)];
  return Array.from({ length: count }, (_, i) => (FIRST_SEED + i) >>> 0);
}

// ─── Comparison ──────────────────────────────────────────────────────────────

/** Keys whose values the contract says are stored by reference, never copied. */
const BY_REFERENCE_KEYS = new Set(['arguments', 'result', 'metadata']);

class Mismatch extends Error {}

/** Numbers objects in the order they are first seen; one ledger per side, per case. */
class IdentityLedger {
  #ids = new Map();
  idOf(object) {
    let id = this.#ids.get(object);
    if (id === undefined) {
      id = this.#ids.size;
      this.#ids.set(object, id);
    }
    return id;
  }
}

function newLedgers() {
  return { expected: new IdentityLedger(), actual: new IdentityLedger() };
}

const isObjectLike = (value) => (typeof value === 'object' && value !== null) || typeof value === 'function';

function show(value) {
  return inspect(value, { depth: 2, breakLength: Infinity, maxStringLength: 80 });
}

function descriptorShape(descriptor) {
  return `${'value' in descriptor ? 'data' : 'accessor'}${descriptor.enumerable ? ' enumerable' : ''}` +
    `${descriptor.writable ? ' writable' : ''}${descriptor.configurable ? ' configurable' : ''}`;
}

/**
 * Walks both trees together (in the baseline's key order) and throws a Mismatch naming the
 * first path where they differ: value, own keys and their order, property kinds, prototype,
 * object identity (per-side numbering at first sight, kept across events), and `===` for
 * by-reference payloads, which are not descended into.
 */
function compareWalk(expected, actual, path, ledgers, visited) {
  if (typeof expected !== typeof actual) {
    throw new Mismatch(`${path}: baseline has ${typeof expected} ${show(expected)}, ${sideName} has ${typeof actual} ${show(actual)}`);
  }
  if (!isObjectLike(expected) || !isObjectLike(actual)) {
    if (!Object.is(expected, actual)) throw new Mismatch(`${path}: baseline ${show(expected)}, ${sideName} ${show(actual)}`);
    return;
  }
  const expectedId = ledgers.expected.idOf(expected);
  const actualId = ledgers.actual.idOf(actual);
  if (expectedId !== actualId) {
    throw new Mismatch(`${path}: object identity differs (baseline object #${expectedId}, ${sideName} object #${actualId}): one side kept an object the other replaced, or aliasing differs`);
  }
  if (visited.has(expected)) return;
  visited.add(expected);

  if (Object.getPrototypeOf(expected) !== Object.getPrototypeOf(actual)) throw new Mismatch(`${path}: prototypes differ`);
  const expectedKeys = Reflect.ownKeys(expected);
  const actualKeys = Reflect.ownKeys(actual);
  if (expectedKeys.length !== actualKeys.length || expectedKeys.some((key, i) => key !== actualKeys[i])) {
    throw new Mismatch(`${path}: own keys differ (in order): baseline [${expectedKeys.map(String)}], ${sideName} [${actualKeys.map(String)}]`);
  }
  for (const key of expectedKeys) {
    const at = Array.isArray(expected) && key !== 'length' ? `${path}[${String(key)}]` : `${path}.${String(key)}`;
    const expectedShape = descriptorShape(Object.getOwnPropertyDescriptor(expected, key));
    const actualShape = descriptorShape(Object.getOwnPropertyDescriptor(actual, key));
    if (expectedShape !== actualShape) throw new Mismatch(`${at}: property is ${expectedShape} in baseline, ${actualShape} in ${sideName}`);
    const expectedValue = expected[key];
    const actualValue = actual[key];
    if (BY_REFERENCE_KEYS.has(key) && !Array.isArray(expected)) {
      if (!Object.is(expectedValue, actualValue)) {
        throw new Mismatch(`${at}: payload not stored by reference: baseline ${show(expectedValue)}, ${sideName} ${show(actualValue)}`);
      }
      continue;
    }
    compareWalk(expectedValue, actualValue, at, ledgers, visited);
  }
}

/** JSON that tolerates BigInt payloads (JSON.stringify throws on them). */
function toJson(value) {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** The two JSON texts around their first difference. */
function jsonDifference(expectedJson, actualJson) {
  let at = 0;
  while (at < expectedJson.length && expectedJson[at] === actualJson[at]) at++;
  const window = (json) => `${at > 100 ? '…' : ''}${json.slice(Math.max(0, at - 100), at + 100)}`;
  return `JSON differs at character ${at}:\n  baseline: ${window(expectedJson)}\n  ${sideName}:   ${window(actualJson)}`;
}

/** All checks, the one that names a path first. */
function compareTrees(expected, actual, ledgers) {
  if (expected === actual) throw new Mismatch('both sides share one root: the harness must build distinct inputs');
  compareWalk(expected, actual, '$', ledgers, new Set());
  try {
    assert.deepStrictEqual(actual, expected);
  } catch (error) {
    throw new Mismatch(`deepStrictEqual: ${error.message}`);
  }
  const expectedJson = toJson(expected);
  const actualJson = toJson(actual);
  if (expectedJson !== actualJson) throw new Mismatch(jsonDifference(expectedJson, actualJson));
}

/**
 * Own keys and values (shallow) of the event, the objects it nests and its payloads, and
 * whether each is still extensible. Payloads are shared by both sides, so a change to one
 * would not show up as a difference between the trees: this catches it.
 */
function eventFingerprint(event) {
  const levels = [event, event.toolCall, event.toolResult, event.toolCall?.arguments, event.toolResult?.result, event.metadata];
  return levels.filter(isObjectLike).map((level) => [Object.isExtensible(level), ...Reflect.ownKeys(level).map((key) => [key, level[key]])]);
}

function assertEventUntouched(event, fingerprint) {
  const now = eventFingerprint(event);
  const same = now.length === fingerprint.length && now.every((level, i) =>
    level.length === fingerprint[i].length && level[0] === fingerprint[i][0] &&
    level.slice(1).every(([key, value], j) => key === fingerprint[i][j + 1][0] && Object.is(value, fingerprint[i][j + 1][1])));
  if (!same) throw new Mismatch('the event object or one of its payloads was modified');
}

// ─── Running cases ───────────────────────────────────────────────────────────

function call(label, fn) {
  try {
    return fn();
  } catch (error) {
    throw new Mismatch(`${label} threw ${error?.name}: ${error?.message}`);
  }
}

function runStreamCase(seed) {
  const testCase = randomStreamCase(seed);
  const expected = testCase.buildChunks();
  const actual = testCase.buildChunks();
  const ledgers = newLedgers();
  try {
    compareTrees(expected, actual, ledgers);
  } catch (error) {
    throw new Mismatch(`initial chunks differ before any event (harness bug): ${error.message}`);
  }
  testCase.events.forEach((event, index) => {
    const edit = testCase.edits[index];
    try {
      if (edit) {
        edit.apply(expected);
        edit.apply(actual);
      }
      const fingerprint = eventFingerprint(event);
      call('baseline appendEventToChunks', () => baseline.appendEventToChunks(expected, event));
      const returned = call(`${sideName} appendEventToChunks`, () => native.appendEventToChunks(actual, event));
      if (returned !== undefined) throw new Mismatch(`appendEventToChunks returned ${show(returned)}, expected undefined`);
      assertEventUntouched(event, fingerprint);
      compareTrees(expected, actual, ledgers);
    } catch (error) {
      if (!(error instanceof Mismatch)) throw error;
      const editNote = edit ? ` (the caller edited the array first: ${edit.name})` : '';
      error.message = `after event #${index} ${show(event)}${editNote}\n  ${error.message}`;
      throw error;
    }
  });
  return testCase.events.length;
}

function counterFactory(prefix) {
  const factory = () => `${prefix}-${++factory.calls}`;
  factory.calls = 0;
  return factory;
}

function runSystemCase(seed) {
  const testCase = randomSystemCase(seed);
  const expected = testCase.buildMessages();
  const actual = testCase.buildMessages();
  const ledgers = newLedgers();
  compareTrees(expected, actual, ledgers);
  const expectedIds = counterFactory('sys');
  const actualIds = counterFactory('sys');
  testCase.events.forEach((event, index) => {
    try {
      const fingerprint = eventFingerprint(event);
      const expectedReturn = call('baseline applySystemEvent', () => baseline.applySystemEvent(expected, event, expectedIds));
      const actualReturn = call(`${sideName} applySystemEvent`, () => native.applySystemEvent(actual, event, actualIds));
      assertEventUntouched(event, fingerprint);
      compareTrees([expectedReturn], [actualReturn], newLedgers());
      if (expectedIds.calls !== actualIds.calls) {
        throw new Mismatch(`idFactory called ${actualIds.calls} times by ${sideName}, ${expectedIds.calls} by baseline`);
      }
      compareTrees(expected, actual, ledgers);
    } catch (error) {
      if (!(error instanceof Mismatch)) throw error;
      error.message = `after system event #${index} ${show(event)}\n  ${error.message}`;
      throw error;
    }
  });
}

/** Runs every seed, collects the first few failures, and fails once with all their seeds. */
function runAll(seeds, runOne) {
  const failures = [];
  let events = 0;
  for (const seed of seeds) {
    try {
      events += runOne(seed) ?? 0;
    } catch (error) {
      if (!(error instanceof Mismatch)) throw error;
      failures.push(`seed ${seed} (DIFF_SEED=${seed}): ${error.message}`);
      if (failures.length >= MAX_REPORTED_FAILURES) break;
    }
  }
  if (failures.length > 0) assert.fail(`${failures.length} failing case(s):\n\n${failures.join('\n\n')}`);
  return events;
}

// ─── Tests ───────────────────────────────────────────────────────────────────

test('the baseline keeps the habits the harness relies on', () => {
  const chunks = [{ type: 'text', text: '\uD83D', id: 'db-1' }, null];
  baseline.appendEventToChunks(chunks, { type: 'text-delta', delta: '\uDE00' }); // the last entry is null: a new chunk
  assert.deepEqual(chunks[2], { type: 'text', text: '\uDE00' });
  const split = [{ type: 'text', text: '\uD83D', id: 'db-1' }];
  baseline.appendEventToChunks(split, { type: 'text-delta', delta: '\uDE00' });
  assert.deepEqual(split, [{ type: 'text', text: '😀', id: 'db-1' }]);
  const args = new Map();
  baseline.appendEventToChunks(chunks, { type: 'tool-call', toolCall: { id: 'a', name: 'n', arguments: args } });
  baseline.appendEventToChunks(chunks, { type: 'text-delta', delta: 'x' });
  baseline.appendEventToChunks(chunks, { type: 'tool-result', toolResult: { toolCallId: 'a', result: undefined, isError: false } });
  baseline.appendEventToChunks(chunks, { type: 'shell-output', stream: 'stdout', data: 'out' });
  const entry = chunks[3].calls[0];
  assert.equal(entry.arguments, args);
  assert.deepEqual(Object.keys(entry), ['id', 'name', 'arguments', 'result', 'isError', 'shellOutput']);
  const firstOutput = entry.shellOutput;
  baseline.appendEventToChunks(chunks, { type: 'shell-output', stream: 'stderr', data: 'err' });
  assert.notEqual(entry.shellOutput, firstOutput);
  assert.deepEqual(entry.shellOutput, { stdout: 'out', stderr: 'err' });
  baseline.appendEventToChunks(chunks, { type: 'error', error: 'e', statusCode: undefined });
  assert.deepEqual(Object.keys(chunks.at(-1)), ['type', 'message']);
  baseline.appendEventToChunks(chunks, { type: 'reasoning-delta', delta: 'r' });
  baseline.appendEventToChunks(chunks, { type: 'reasoning-end', metadata: null });
  baseline.appendEventToChunks(chunks, { type: 'reasoning-delta', delta: 's' });
  assert.deepEqual(chunks.slice(-2).map((c) => c.text), ['r', 's']);
});

test(`appendEventToChunks: ${sideName} equals the baseline after every event (${seedsFor(STREAM_CASES).length} random streams)`, () => {
  const events = runAll(seedsFor(STREAM_CASES), runStreamCase);
  assert.ok(events > 0);
});

test(`applySystemEvent: ${sideName} equals the baseline (${seedsFor(SYSTEM_CASES).length} random message lists)`, () => {
  runAll(seedsFor(SYSTEM_CASES), runSystemCase);
});

test(`applySystemEvent: ${sideName} defaults to a random v4 UUID`, () => {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const messages = [{ id: 'u', role: 'user', chunks: [] }];
  const first = native.applySystemEvent(messages, { kind: 'notice', text: 'a' });
  assert.match(first.messageId, uuid);
  assert.deepEqual(messages[1], { id: first.messageId, role: 'system', chunks: [{ type: 'system', kind: 'notice', text: 'a' }] });
  assert.deepEqual(native.applySystemEvent(messages, { kind: 'notice', text: 'b' }, undefined), first);
  messages.push({ id: 'v', role: 'assistant', chunks: [] });
  const second = native.applySystemEvent(messages, { kind: 'cancelled', text: 'c' }, undefined);
  assert.match(second.messageId, uuid);
  assert.notEqual(second.messageId, first.messageId);
});
