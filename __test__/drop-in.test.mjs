// The drop-in's observable behaviour, rule by rule, against the contract.
import test from 'node:test'
import assert from 'node:assert/strict'

import { appendEventToChunks, applySystemEvent } from 'agent-chunks'

const fold = (chunks, ...events) => {
  for (const event of events) appendEventToChunks(chunks, event)
  return chunks
}
const text = (delta) => ({ type: 'text-delta', delta })
const reasoning = (delta) => ({ type: 'reasoning-delta', delta })
const seal = (metadata) => ({ type: 'reasoning-end', metadata })
const call = (id, args = { id }) => ({ type: 'tool-call', toolCall: { id, name: 'bash', arguments: args } })
const result = (toolCallId, value, isError = false) => ({
  type: 'tool-result',
  toolResult: { toolCallId, result: value, isError },
})
const shell = (stream, data) => ({ type: 'shell-output', stream, data })

test('text-delta extends the last text chunk, else opens one', () => {
  const chunks = fold([], text('Hel'), text('lo'), reasoning('r'), text('again'))
  assert.deepEqual(chunks, [
    { type: 'text', text: 'Hello' },
    { type: 'thinking', text: 'r' },
    { type: 'text', text: 'again' },
  ])
})

test('reasoning-delta extends only an unsealed thinking chunk', () => {
  const metadata = { anthropic: { signature: 'sig' } }
  const chunks = fold([], reasoning('a'), reasoning('b'), seal(metadata), reasoning('c'))
  assert.deepEqual(chunks, [
    { type: 'thinking', text: 'ab', metadata },
    { type: 'thinking', text: 'c' },
  ])
  assert.equal(chunks[0].metadata, metadata, 'metadata is stored by reference')
})

test('reasoning-end walks back to the newest thinking chunk; sealed or none: nothing', () => {
  const chunks = fold([], reasoning('a'), text('t'), call('1'), seal({ p: 1 }))
  assert.deepEqual(chunks[0].metadata, { p: 1 })
  fold(chunks, seal({ p: 2 }))
  assert.deepEqual(chunks[0].metadata, { p: 1 }, 'an already sealed chunk keeps its metadata')
  const older = [{ type: 'thinking', text: 'old' }, { type: 'thinking', text: 'new', metadata: 1 }]
  fold(older, seal(2))
  assert.equal('metadata' in older[0], false, 'only the newest thinking chunk is considered')
  assert.deepEqual(fold([], seal({})), [], 'an orphan seal is dropped')
  const unsealed = fold([], reasoning('x'), seal(undefined), { type: 'reasoning-end' })
  assert.equal('metadata' in unsealed[0], false, 'undefined metadata does nothing')
  const nullSealed = fold([], reasoning('x'), seal(null), reasoning('y'))
  assert.equal(nullSealed.length, 2, 'null is metadata: it seals')
})

test('tool-call joins the last batch, else opens one; arguments by reference', () => {
  const args = new Map([['k', 1]])
  const chunks = fold([], call('1', args), call('2'), text('t'), call('3'))
  assert.equal(chunks.length, 3)
  assert.deepEqual(chunks[0].calls.map((c) => c.id), ['1', '2'])
  assert.equal(chunks[0].calls[0].arguments, args)
  assert.deepEqual(Object.keys(chunks[0].calls[0]), ['id', 'name', 'arguments'])
  const undefinedArgs = fold([], { type: 'tool-call', toolCall: { id: 'u', name: 'n' } })
  assert.deepEqual(Object.keys(undefinedArgs[0].calls[0]), ['id', 'name', 'arguments'])
})

test('tool-result lands on the first call with the id in the newest batch that has it', () => {
  const value = { out: [1, 2] }
  const chunks = fold([], call('a'), call('a'), text('t'), call('b'), result('a', value, true), result('zz', 1))
  assert.equal(chunks[0].calls[0].result, value)
  assert.equal(chunks[0].calls[0].isError, true)
  assert.equal('result' in chunks[0].calls[1], false)
  assert.equal('result' in chunks[2].calls[0], false)
  fold(chunks, result('b', undefined, 'maybe'))
  assert.deepEqual(Object.keys(chunks[2].calls[0]), ['id', 'name', 'arguments', 'result', 'isError'])
  assert.equal(chunks[2].calls[0].isError, 'maybe', 'isError passes through as given')
})

test('shell-output rebuilds shellOutput of the newest batch\'s last call', () => {
  assert.deepEqual(fold([], shell('stdout', 'x')), [], 'no batch: nothing')
  const chunks = fold([], call('1'), call('2'), text('meanwhile'), shell('stdout', 'a'))
  const first = chunks[0].calls[1].shellOutput
  fold(chunks, shell('stderr', 'e'), shell('pty', 'ignored'), shell('stdout', 'b'))
  assert.deepEqual(chunks[0].calls[1].shellOutput, { stdout: 'ab', stderr: 'e' })
  assert.notEqual(chunks[0].calls[1].shellOutput, first, 'a new object each time')
  assert.deepEqual(first, { stdout: 'a', stderr: '' }, 'the old object is left as it was')
  assert.equal('shellOutput' in chunks[0].calls[0], false)
  fold(chunks, result('2', 'done'))
  assert.deepEqual(Object.keys(chunks[0].calls[1]), ['id', 'name', 'arguments', 'shellOutput', 'result', 'isError'])
  assert.deepEqual(fold([{ type: 'tool-batch', calls: [] }], shell('stdout', 'x'))[0].calls, [])
})

test('error, notice, model-changed and config-reload always open a chunk', () => {
  const chunks = fold(
    [],
    { type: 'error', error: 'a' },
    { type: 'error', error: 'b', statusCode: 429 },
    { type: 'error', error: 'c', statusCode: undefined },
    { type: 'notice', message: 'n' },
    { type: 'notice', message: 'n' },
    { type: 'model-changed', modelId: 'claude', keyId: 'k1' },
    { type: 'config-reload' },
  )
  assert.deepEqual(chunks, [
    { type: 'error', message: 'a' },
    { type: 'error', message: 'b', statusCode: 429 },
    { type: 'error', message: 'c' },
    { type: 'system', kind: 'notice', text: 'n' },
    { type: 'system', kind: 'notice', text: 'n' },
    { type: 'system', kind: 'model-changed', text: 'Switched to claude (k1)' },
    { type: 'system', kind: 'config-reload', text: 'Configuration reloaded' },
  ])
  assert.equal('statusCode' in chunks[2], false)
  assert.ok(Object.is(fold([], { type: 'error', error: 'z', statusCode: -0 })[0].statusCode, -0))
})

test('lifecycle and unknown events change nothing', () => {
  const chunks = [{ type: 'text', text: 'x' }]
  const before = JSON.stringify(chunks)
  for (const type of [
    'status', 'turn-start', 'turn-sealed', 'done', 'usage', 'task-list-update', 'tab-created',
    'message-queued', 'message-consumed', 'message-cancelled', 'compaction-started',
    'compaction-complete', 'compaction-error', 'some-future-event', '',
  ]) {
    appendEventToChunks(chunks, { type, delta: 5, message: null })
  }
  assert.equal(JSON.stringify(chunks), before)
})

test('existing objects are kept and extended in place, never replaced', () => {
  const textChunk = { type: 'text', text: 'a', id: 'db-1', createdAt: 5 }
  const calls = [{ id: 't1', name: 'read', arguments: {}, extra: true }]
  const batch = { type: 'tool-batch', calls, extra: 'kept' }
  const chunks = [batch, textChunk]
  fold(chunks, text('b'))
  assert.equal(chunks[1], textChunk)
  assert.deepEqual(textChunk, { type: 'text', text: 'ab', id: 'db-1', createdAt: 5 })
  assert.deepEqual(Object.keys(textChunk), ['type', 'text', 'id', 'createdAt'])
  fold(chunks, result('t1', 'r'), call('t2'))
  assert.equal(chunks[0], batch)
  assert.equal(batch.calls, calls)
  assert.equal(calls[0].extra, true)
  assert.equal(calls[0].result, 'r')
  assert.equal(chunks[2].calls[0].id, 't2', 'a text chunk sits between: a new batch')
})

test('strings are exact to the UTF-16 unit', () => {
  const chunks = fold([], text('smile \uD83D'), text('\uDE00!'), reasoning('\uD800'), reasoning('x\uDFFF'))
  assert.equal(chunks[0].text, 'smile \u{1F600}!')
  assert.equal(chunks[1].text, '\uD800x\uDFFF', 'lone surrogates stay lone')
  const model = fold([], { type: 'model-changed', modelId: 'm\uD83D', keyId: '\uDE00k' })
  assert.equal(model[0].text, 'Switched to m\uD83D (\uDE00k)')
  const shellChunks = fold([], call('1'), shell('stdout', '\uD83D'), shell('stdout', '\uDE00'))
  assert.equal(shellChunks[0].calls[0].shellOutput.stdout, '\u{1F600}')
  const nul = fold([], text('a\u0000b'))
  assert.equal(nul[0].text, 'a\u0000b')
})

test('text is joined as JavaScript + joins it, whatever the caller stored', () => {
  const chunks = [{ type: 'text' }]
  fold(chunks, text('x'))
  assert.equal(chunks[0].text, 'undefinedx')
  const numeric = fold([{ type: 'thinking', text: 5 }], reasoning('x'))
  assert.equal(numeric[0].text, '5x')
  const nulled = fold([{ type: 'text', text: null }], text('x'))
  assert.equal(nulled[0].text, 'nullx')
})

test('events are never modified, and may be frozen', () => {
  const deepFreeze = (o) => {
    for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v)
    return Object.freeze(o)
  }
  const events = [
    text('a'), reasoning('b'), seal({ x: { y: 1 } }), call('1', { deep: { list: [1] } }),
    result('1', { ok: true }), shell('stdout', 'o'), { type: 'error', error: 'e', statusCode: 1 },
  ].map(deepFreeze)
  const snapshots = events.map((e) => JSON.stringify(e))
  const chunks = fold([], ...events)
  assert.deepEqual(events.map((e) => JSON.stringify(e)), snapshots)
  assert.equal(chunks[2].calls[0].arguments, events[3].toolCall.arguments)
})

test('holes and junk in the caller\'s array are skipped as the helper skips them', () => {
  const chunks = [{ type: 'thinking', text: 'a' }, null, undefined, 7, 'text', , { type: 'tool-batch', calls: [] }]
  fold(chunks, text('t'))
  assert.deepEqual(chunks.at(-1), { type: 'text', text: 't' })
  fold(chunks, seal({ s: 1 }))
  assert.deepEqual(chunks[0].metadata, { s: 1 })
  const trailingHole = [{ type: 'text', text: 'a' }, null]
  fold(trailingHole, text('b'))
  assert.deepEqual(trailingHole[2], { type: 'text', text: 'b' })
})

test('Proxy-wrapped arrays and chunks (reactive stores) are read and written through', () => {
  const seen = []
  const observe = (target) =>
    new Proxy(target, {
      set(t, key, value, receiver) {
        seen.push(String(key))
        return Reflect.set(t, key, value, receiver)
      },
    })
  const chunks = observe([observe({ type: 'text', text: 'a' })])
  fold(chunks, text('b'), reasoning('r'))
  assert.equal(Array.isArray(chunks), true)
  assert.deepEqual(JSON.parse(JSON.stringify(chunks)), [{ type: 'text', text: 'ab' }, { type: 'thinking', text: 'r' }])
  // As Array.prototype.push does: the new element, then the length.
  assert.deepEqual(seen, ['text', '1', 'length'])
})

test('linear time: the work per delta does not grow with the message', () => {
  // Counts property reads and writes on the chunk being extended, so the check is about
  // operations, not wall-clock time.
  const countOps = (deltas) => {
    let ops = 0
    const chunk = new Proxy({ type: 'text', text: '' }, {
      get(t, k, r) { ops++; return Reflect.get(t, k, r) },
      set(t, k, v, r) { ops++; return Reflect.set(t, k, v, r) },
    })
    const chunks = [chunk]
    const event = text('0123456789')
    for (let i = 0; i < deltas; i++) appendEventToChunks(chunks, event)
    const counted = ops
    assert.equal(chunk.text.length, deltas * 10)
    return counted
  }
  const small = countOps(20_000)
  const large = countOps(160_000)
  assert.equal(large / small, 8)
})

test('applySystemEvent appends to a trailing system message without asking for an id', () => {
  const system = { id: 'sys-1', role: 'system', chunks: [{ type: 'system', kind: 'notice', text: 'a' }], extra: 1 }
  const messages = [{ id: 'u', role: 'user', chunks: [] }, system]
  let asked = 0
  const out = applySystemEvent(messages, { kind: 'cancelled', text: 'Stopped' }, () => { asked++; return 'x' })
  assert.deepEqual(out, { messageId: 'sys-1' })
  assert.equal(asked, 0)
  assert.equal(messages[1], system)
  assert.deepEqual(system.chunks[1], { type: 'system', kind: 'cancelled', text: 'Stopped' })
  assert.deepEqual(Object.keys(system.chunks[1]), ['type', 'kind', 'text'])
})

test('applySystemEvent creates a system message otherwise, calling idFactory once', () => {
  const messages = [{ id: 'a', role: 'assistant', chunks: [] }]
  const calls = []
  const out = applySystemEvent(messages, { kind: 'notice', text: 'hi' }, function () {
    calls.push(arguments.length)
    return 'new-id'
  })
  assert.deepEqual(out, { messageId: 'new-id' })
  assert.deepEqual(calls, [0])
  assert.deepEqual(messages[1], { id: 'new-id', role: 'system', chunks: [{ type: 'system', kind: 'notice', text: 'hi' }] })
  assert.deepEqual(Object.keys(messages[1]), ['id', 'role', 'chunks'])
  const empty = []
  applySystemEvent(empty, { kind: 'notice', text: 'first' }, () => 'first-id')
  assert.equal(empty[0].id, 'first-id')
})

test('applySystemEvent defaults to random v4 UUIDs', () => {
  const ids = new Set()
  for (let i = 0; i < 200; i++) {
    const { messageId } = applySystemEvent([], { kind: 'notice', text: 't' })
    assert.match(messageId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    ids.add(messageId)
  }
  assert.equal(ids.size, 200)
  const explicitUndefined = applySystemEvent([], { kind: 'notice', text: 't' }, undefined)
  assert.match(explicitUndefined.messageId, /^[0-9a-f-]{36}$/)
})

test('applySystemEvent keeps the caller\'s kind string and returns whatever id the last message has', () => {
  const messages = [{ id: 42, role: 'system', chunks: [] }]
  assert.deepEqual(applySystemEvent(messages, { kind: 'future-kind', text: 't' }), { messageId: 42 })
  assert.equal(messages[0].chunks[0].kind, 'future-kind')
})
