// The hostile-caller suite again, with the drop-in writing through the built-ins it takes
// at load (`Reflect.set`, `Array.prototype.push`) instead of the functions it compiles from
// `mechanics.js`: the path taken where code from text may not run, as in a renderer whose
// Content Security Policy forbids `eval` (the WebAssembly build's `napi_run_script`). A
// frozen, sealed, read-only or refusing target must throw a TypeError there too, with the
// caller's data unchanged, never lose the event silently.
import test from 'node:test'
import assert from 'node:assert/strict'

import * as addon from 'agent-chunks'
import binding from 'agent-chunks'

assert.equal(binding.__mechanicsForTest(), true, 'Node compiles the mechanics')
assert.equal(binding.__mechanicsForTest(false), false)

test('a refused write throws V8\'s own TypeError, as the helper\'s assignment does', () => {
  const chunks = [Object.freeze({ type: 'text', text: 'a' })]
  assert.throws(() => addon.appendEventToChunks(chunks, { type: 'text-delta', delta: 'b' }), {
    name: 'TypeError',
    message: "Cannot assign to read only property 'text' of object '#<Object>'",
  })
  assert.deepEqual(chunks, [{ type: 'text', text: 'a' }])
  const frozen = Object.freeze([])
  assert.throws(() => addon.appendEventToChunks(frozen, { type: 'notice', message: 'n' }), {
    name: 'TypeError',
    message: 'Cannot add property 0, object is not extensible',
  })
  assert.throws(() => addon.applySystemEvent(Object.freeze([]), { kind: 'notice', text: 't' }, () => 'id'), {
    name: 'TypeError',
    message: 'Cannot add property 0, object is not extensible',
  })
  const entry = Object.freeze({ id: 't1', name: 'bash', arguments: {} })
  assert.throws(
    () => addon.appendEventToChunks([{ type: 'tool-batch', calls: [entry] }], { type: 'tool-result', toolResult: { toolCallId: 't1', result: 1, isError: false } }),
    { name: 'TypeError', message: 'Cannot add property result, object is not extensible' },
  )
  assert.equal('result' in entry, false)
  // A setter on Object.prototype never sees the write (the property is defined on the
  // object the write is copied from, not set).
  let seen = 0
  Object.defineProperty(Object.prototype, 'text', { set() { seen++ }, configurable: true })
  try {
    const open = [{ type: 'text', text: 'a' }]
    addon.appendEventToChunks(open, { type: 'text-delta', delta: 'b' })
    assert.equal(open[0].text, 'ab')
  } finally {
    delete Object.prototype.text
  }
  assert.equal(seen, 0)
})

test('__mechanicsForTest is not part of the typed API', async () => {
  const { readFile } = await import('node:fs/promises')
  const typings = await readFile(new URL('../index.d.ts', import.meta.url), 'utf8')
  assert.ok(!typings.includes('__mechanicsForTest'))
})

await import('./hostile-dropin.test.mjs')
