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

test('the refusal names what was refused', () => {
  const chunks = [Object.freeze({ type: 'text', text: 'a' })]
  assert.throws(() => addon.appendEventToChunks(chunks, { type: 'text-delta', delta: 'b' }), {
    name: 'TypeError',
    message: 'appendEventToChunks: cannot write "text" of the last chunk: the target refused the write (it is frozen, sealed, non-extensible or read-only, or a Proxy refused it)',
  })
  assert.equal(chunks[0].text, 'a')
  const frozen = Object.freeze([])
  assert.throws(() => addon.appendEventToChunks(frozen, { type: 'notice', message: 'n' }), {
    name: 'TypeError',
    message: /^appendEventToChunks: cannot add an element to "chunks": the target refused the write/,
  })
  assert.throws(() => addon.applySystemEvent(Object.freeze([]), { kind: 'notice', text: 't' }, () => 'id'), {
    name: 'TypeError',
    message: /^applySystemEvent: cannot add an element to "messages": the target refused the write/,
  })
  const entry = Object.freeze({ id: 't1', name: 'bash', arguments: {} })
  assert.throws(
    () => addon.appendEventToChunks([{ type: 'tool-batch', calls: [entry] }], { type: 'tool-result', toolResult: { toolCallId: 't1', result: 1, isError: false } }),
    { name: 'TypeError', message: /^appendEventToChunks: cannot write "result": the target refused the write/ },
  )
})

test('__mechanicsForTest is not part of the typed API', async () => {
  const { readFile } = await import('node:fs/promises')
  const typings = await readFile(new URL('../index.d.ts', import.meta.url), 'utf8')
  assert.ok(!typings.includes('__mechanicsForTest'))
})

await import('./hostile-dropin.test.mjs')
