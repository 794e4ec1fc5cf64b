// Hostile but legal use of the drop-in, against the plain-JS helper: frozen and read-only
// targets, Proxies whose traps refuse or throw, getters and idFactory functions that
// change the very array being written, sparse arrays and lengths past 2^32. Each scenario
// runs on fresh data with the helper and with the addon; the outcome (value, or error
// class and message), the data afterwards and every Proxy trap call must be the same.
import test from 'node:test'
import assert from 'node:assert/strict'

import baseline from '../baseline/chunks.js'
import * as addon from 'agent-chunks'
import binding from 'agent-chunks'

const implementations = { helper: baseline, addon }

// `hostile-fallback.test.mjs` runs this file again with the drop-in writing through
// built-ins instead of the functions it compiles, as it does where a Content Security
// Policy forbids code from text (`browser.test.mjs` runs it in a page served with such a
// policy): everything must be the same there too.
const NATIVE = binding.__napiBindingTarget === 'native'

/** Runs `scenario(impl, log)` once per implementation and returns what each saw. */
function outcomes(scenario) {
  const seen = {}
  for (const [name, impl] of Object.entries(implementations)) {
    const log = []
    let outcome
    let data
    try {
      const result = scenario(impl, log, (d) => (data = d))
      outcome = { returned: result }
    } catch (error) {
      outcome = { threw: error?.constructor?.name, message: error?.message }
    }
    seen[name] = { outcome, data: snapshot(data), log }
  }
  return seen
}

/** A structural copy that keeps holes, `undefined`, frozenness and key order visible. */
function snapshot(value, seen = new Map()) {
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? `${value}n` : value
  if (seen.has(value)) return seen.get(value)
  const copy = { frozen: Object.isFrozen(value), sealed: Object.isSealed(value), keys: [] }
  seen.set(value, copy)
  for (const key of Reflect.ownKeys(value)) {
    const d = Object.getOwnPropertyDescriptor(value, key)
    copy.keys.push([String(key), 'value' in d ? snapshot(d.value, seen) : 'accessor'])
  }
  return copy
}

/** The helper and the addon agree on outcome, data and trap calls. */
function same(scenario, expect) {
  const { helper, addon: native } = outcomes(scenario)
  const label = same.label ? `${same.label}: ` : ''
  assert.deepEqual(native.outcome, helper.outcome, `${label}the same outcome`)
  assert.deepEqual(native.data, helper.data, `${label}the same data afterwards`)
  assert.deepEqual(native.log, helper.log, `${label}the same Proxy trap calls`)
  expect?.(helper)
  return helper
}

const append = (impl, chunks, event) => impl.appendEventToChunks(chunks, event)
const call = (id) => ({ id, name: 'bash', arguments: { command: 'ls' } })

const EVENTS = [
  { type: 'text-delta', delta: 'x' },
  { type: 'reasoning-delta', delta: 'r' },
  { type: 'reasoning-end', metadata: { anthropic: { signature: 's' } } },
  { type: 'tool-call', toolCall: call('t9') },
  { type: 'tool-result', toolResult: { toolCallId: 't1', result: 'ok', isError: false } },
  { type: 'shell-output', stream: 'stdout', data: 'out' },
  { type: 'shell-output', stream: 'stderr', data: 'err' },
  { type: 'error', error: 'boom', statusCode: 500 },
  { type: 'notice', message: 'n' },
  { type: 'model-changed', modelId: 'm', keyId: 'k' },
  { type: 'config-reload' },
  { type: 'done' },
]

/** Chunks whose last chunk is of each kind, so every event both extends and pushes. */
const LAYOUTS = [
  () => [],
  () => [{ type: 'text', text: 'a' }],
  () => [{ type: 'thinking', text: 't' }],
  () => [{ type: 'thinking', text: 't', metadata: { sealed: true } }],
  () => [{ type: 'tool-batch', calls: [call('t1')] }],
  () => [{ type: 'tool-batch', calls: [call('t1')] }, { type: 'text', text: 'after' }],
]

function deepFreeze(value) {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Reflect.ownKeys(value)) deepFreeze(value[key])
  }
  return value
}

test('frozen, sealed and non-extensible state: the helper\'s TypeError, data unchanged', () => {
  const lock = { freeze: Object.freeze, seal: Object.seal, preventExtensions: Object.preventExtensions, deep: deepFreeze }
  for (const [how, close] of Object.entries(lock)) {
    for (const layout of LAYOUTS) {
      for (const event of EVENTS) {
        same((impl, _log, keep) => {
          const chunks = close(layout())
          keep(chunks)
          append(impl, chunks, event)
        })
      }
    }
  }
})

test('a refused write throws where the helper throws, and never loses the event silently', () => {
  const { outcome } = same((impl, _log, keep) => {
    const chunks = keep(Object.freeze([]))
    append(impl, chunks, { type: 'text-delta', delta: 'x' })
  })
  assert.equal(outcome.threw, 'TypeError')
  const frozenChunk = same((impl, _log, keep) => {
    const chunks = keep([Object.freeze({ type: 'text', text: 'a' })])
    append(impl, chunks, { type: 'text-delta', delta: 'x' })
  })
  assert.equal(frozenChunk.outcome.threw, 'TypeError')
})

test('read-only parts of a chunk: non-writable text, getter-only text, frozen calls and entries', () => {
  const cases = [
    [() => [Object.defineProperty({ type: 'text' }, 'text', { value: 'a', writable: false, enumerable: true })], { type: 'text-delta', delta: 'x' }],
    [() => [Object.defineProperty({ type: 'thinking' }, 'text', { get: () => 'a', enumerable: true })], { type: 'reasoning-delta', delta: 'x' }],
    [() => [Object.preventExtensions({ type: 'thinking', text: 'a' })], { type: 'reasoning-end', metadata: { m: 1 } }],
    [() => [{ type: 'tool-batch', calls: Object.freeze([call('t1')]) }], { type: 'tool-call', toolCall: call('t2') }],
    [() => [{ type: 'tool-batch', calls: [Object.freeze(call('t1'))] }], { type: 'tool-result', toolResult: { toolCallId: 't1', result: 1, isError: false } }],
    [() => [{ type: 'tool-batch', calls: [Object.freeze(call('t1'))] }], { type: 'shell-output', stream: 'stdout', data: 'o' }],
    [() => [{ type: 'tool-batch', calls: [Object.seal(call('t1'))] }], { type: 'shell-output', stream: 'stderr', data: 'e' }],
    [() => { const a = [{ type: 'text', text: 'a' }]; Object.defineProperty(a, 'length', { writable: false }); return a }, { type: 'notice', message: 'n' }],
  ]
  for (const [layout, event] of cases) {
    const { outcome } = same((impl, _log, keep) => append(impl, keep(layout()), event))
    assert.equal(outcome.threw, 'TypeError', `${event.type} on a read-only target`)
  }
  // A setter-only accessor takes the write (and reads as undefined): no error.
  same((impl, log, keep) => {
    const chunk = Object.defineProperty({ type: 'thinking', text: 'a' }, 'metadata', { set: (v) => log.push(v), enumerable: true })
    append(impl, keep([chunk]), { type: 'reasoning-end', metadata: { m: 1 } })
  })
})

test('a refused second write is undone: result goes back when isError is refused', () => {
  // The helper writes `result`, then throws on `isError`; the addon throws the same
  // TypeError and leaves the entry as it was.
  const run = (impl) => {
    const entry = Object.seal({ ...call('t1'), result: 'before' })
    const chunks = [{ type: 'tool-batch', calls: [entry] }]
    let error
    try {
      append(impl, chunks, { type: 'tool-result', toolResult: { toolCallId: 't1', result: 'after', isError: true } })
    } catch (e) {
      error = e
    }
    return { error, entry }
  }
  const helper = run(baseline)
  const native = run(addon)
  assert.ok(native.error instanceof TypeError)
  assert.equal(native.error.message, helper.error.message)
  assert.equal(helper.entry.result, 'after', 'the helper leaves half an event')
  assert.deepEqual(Object.entries(native.entry), Object.entries({ ...call('t1'), result: 'before' }))
  // Without a previous result the key is removed again.
  const bare = Object.defineProperty(call('t1'), 'isError', { value: false, writable: false, enumerable: true })
  assert.throws(() => append(addon, [{ type: 'tool-batch', calls: [bare] }], { type: 'tool-result', toolResult: { toolCallId: 't1', result: 'r', isError: true } }), TypeError)
  assert.equal('result' in bare, false)
  // The helper reads isError after writing result; a getter there that throws leaves the
  // helper's entry half written, the addon's as it was.
  const boom = new Error('isError getter fails')
  const entry = { ...call('t1'), result: 'before' }
  const toolResult = { toolCallId: 't1', result: 'after', get isError() { throw boom } }
  assert.throws(() => append(addon, [{ type: 'tool-batch', calls: [entry] }], { type: 'tool-result', toolResult }), (e) => e === boom)
  assert.deepEqual(entry, { ...call('t1'), result: 'before' })
})

/** A Proxy over `target` that logs every trap call into `log` under `name`. */
function logged(target, log, name, overrides = {}) {
  return new Proxy(target, {
    get(t, key, receiver) {
      // Two reads without effect are left out: index -1 (the helper's
      // `chunks[chunks.length - 1]` on an empty array), which the addon does not make, and
      // `push`, which the helper looks up before it reads a delta and the addon when it
      // pushes (it calls a `push` of the caller's own, as the helper does).
      if (typeof key === 'string' && key !== '-1' && key !== 'push') log.push(`get ${name}.${key}`)
      return overrides.get ? overrides.get(t, key, receiver) : Reflect.get(t, key, receiver)
    },
    set(t, key, value, receiver) {
      log.push(`set ${name}.${String(key)}`)
      return overrides.set ? overrides.set(t, key, value, receiver) : Reflect.set(t, key, value, receiver)
    },
    defineProperty(t, key, descriptor) {
      log.push(`define ${name}.${String(key)}`)
      return overrides.defineProperty ? overrides.defineProperty(t, key, descriptor) : Reflect.defineProperty(t, key, descriptor)
    },
    deleteProperty(t, key) {
      log.push(`delete ${name}.${String(key)}`)
      return Reflect.deleteProperty(t, key)
    },
  })
}

test('Proxies: the same traps in the same order, and refusing traps throw the same TypeError', () => {
  const refusals = {
    plain: {},
    'set false': { set: () => false },
    'defineProperty false': { defineProperty: () => false },
    'set throws': { set: () => { throw new RangeError('trap says no') } },
  }
  for (const [what, overrides] of Object.entries(refusals)) {
    for (const layout of LAYOUTS) {
      for (const event of EVENTS) {
        // The array, and separately its chunks, behind a logging Proxy.
        same((impl, log, keep) => {
          const chunks = keep(logged(layout(), log, 'chunks', overrides))
          append(impl, chunks, event)
        })
        same((impl, log, keep) => {
          const chunks = keep(layout().map((chunk, i) => logged(chunk, log, `chunks[${i}]`, overrides)))
          append(impl, chunks, event)
        })
      }
    }
  }
})

test('a Proxy that takes the element but refuses the length: the element is taken back', () => {
  const run = (impl) => {
    const target = [{ type: 'text', text: 'a' }]
    const chunks = new Proxy(target, { set: (t, key, value) => (key === 'length' ? false : Reflect.set(t, key, value)) })
    assert.throws(() => append(impl, chunks, { type: 'notice', message: 'n' }), TypeError)
    return target
  }
  assert.equal(1 in run(baseline), true, 'the helper leaves the element behind')
  assert.equal(1 in run(addon), false)
})

test('applySystemEvent on frozen and refusing targets throws and returns nothing', () => {
  const layouts = [
    () => Object.freeze([]),
    () => Object.freeze([{ id: 'u', role: 'user', chunks: [] }]),
    () => [Object.freeze({ id: 's', role: 'system', chunks: Object.freeze([]) })],
    () => deepFreeze([{ id: 's', role: 'system', chunks: [{ type: 'system', kind: 'notice', text: 'a' }] }]),
    () => Object.seal([{ id: 'u', role: 'user', chunks: [] }]),
  ]
  for (const layout of layouts) {
    const { outcome } = same((impl, log, keep) => {
      const messages = keep(layout())
      return impl.applySystemEvent(messages, { kind: 'notice', text: 't' }, () => { log.push('id'); return 'new-id' })
    })
    assert.equal(outcome.threw, 'TypeError')
  }
  same((impl, log, keep) => {
    const messages = keep(logged([{ id: 'u', role: 'user', chunks: [] }], log, 'messages', { set: () => false }))
    return impl.applySystemEvent(messages, { kind: 'notice', text: 't' }, () => 'id')
  })
})

test('re-entrant idFactory: what it pushes is kept, as with the helper', () => {
  const factories = {
    'pushes a user message': (messages) => { messages.push({ id: 'x', role: 'user', chunks: [] }); return 'id' },
    'pushes a system message': (messages) => { messages.push({ id: 'x', role: 'system', chunks: [] }); return 'id' },
    'empties the array': (messages) => { messages.length = 0; return 'id' },
    'applies another event': (messages, impl) => { impl.applySystemEvent(messages, { kind: 'notice', text: 'inner' }, () => 'inner-id'); return 'id' },
  }
  for (const [what, factory] of Object.entries(factories)) {
    same((impl, log, keep) => {
      const messages = keep([{ id: 'u', role: 'user', chunks: [] }])
      return impl.applySystemEvent(messages, { kind: 'notice', text: 't' }, () => factory(messages, impl))
    })
    same((impl, log, keep) => {
      const messages = keep(logged([{ id: 'u', role: 'user', chunks: [] }], log, 'messages'))
      return impl.applySystemEvent(messages, { kind: 'notice', text: 't' }, () => factory(messages, impl))
    })
  }
})

test('getters on the event that change the array have the helper\'s effect', () => {
  const meddlers = {
    'push a text chunk': (chunks) => chunks.push({ type: 'text', text: 'p' }),
    'push a thinking chunk': (chunks) => chunks.push({ type: 'thinking', text: 'p' }),
    'push a batch': (chunks) => chunks.push({ type: 'tool-batch', calls: [call('t1')] }),
    'empty the array': (chunks) => { chunks.length = 0 },
    'append re-entrantly': (chunks, impl) => impl.appendEventToChunks(chunks, { type: 'text-delta', delta: 'X' }),
    'reason re-entrantly': (chunks, impl) => impl.appendEventToChunks(chunks, { type: 'reasoning-delta', delta: 'X' }),
    'shell output re-entrantly': (chunks, impl) => impl.appendEventToChunks(chunks, { type: 'shell-output', stream: 'stdout', data: 'X' }),
    'freeze the last chunk': (chunks) => Object.freeze(chunks[chunks.length - 1]),
    'freeze the array': (chunks) => Object.freeze(chunks),
    'freeze the calls': (chunks) => { for (const c of chunks) if (c?.calls) Object.freeze(c.calls) },
  }
  const fields = {
    'text-delta': ['delta'],
    'reasoning-delta': ['delta'],
    'tool-call': ['toolCall'],
    'tool-result': ['toolResult.result', 'toolResult.isError', 'toolResult.toolCallId'],
    'shell-output': ['data', 'stream'],
    'error': ['error'],
    'notice': ['message'],
    'model-changed': ['keyId'],
  }
  for (const [what, meddle] of Object.entries(meddlers)) {
    for (const layout of LAYOUTS) {
      for (const event of EVENTS) {
        for (const field of fields[event.type] ?? []) {
          same.label = `${what}, ${event.type}.${field}, after ${JSON.stringify(layout())}`
          same((impl, _log, keep) => {
            const chunks = keep(layout())
            let done = false
            // `toolResult.result`: the getter goes on the nested object.
            const path = field.split('.')
            const key = path.pop()
            const hostile = { ...event }
            let holder = hostile
            let original = event
            for (const step of path) {
              holder = holder[step] = { ...holder[step] }
              original = original[step]
            }
            Object.defineProperty(holder, key, {
              enumerable: true,
              get() {
                if (!done) { done = true; meddle(chunks, impl) }
                return original[key]
              },
            })
            append(impl, chunks, hostile)
          })
        }
      }
    }
  }
})

test('getters that throw midway leave the chunks exactly as they were, after the helper\'s reads', () => {
  const boom = new Error('getter fails')
  for (const layout of LAYOUTS) {
    const events = [
      { type: 'tool-call', toolCall: { id: 't2', get name() { throw boom } } },
      { type: 'text-delta', get delta() { throw boom } },
      { type: 'error', error: 'e', get statusCode() { throw boom } },
      { type: 'model-changed', modelId: 'm', get keyId() { throw boom } },
    ]
    for (const event of events) {
      const chunks = layout()
      const before = snapshot(chunks)
      assert.throws(() => addon.appendEventToChunks(chunks, event), (e) => e === boom)
      assert.deepEqual(snapshot(chunks), before)
      // The helper reads the chunks before a delta or a tool call, and so does the addon.
      same((impl, log, keep) => append(impl, keep(logged(layout(), log, 'chunks')), event))
    }
  }
})

test('sparse and huge arrays: the helper\'s result, and a Proxy\'s length past 2^32 never cut to 32 bits', () => {
  sparseArraysMatchTheHelper()
  for (const length of [2 ** 32 - 1, 2 ** 32, 2 ** 32 + 2, 2 ** 40, 2 ** 53 - 2]) {
    for (const event of EVENTS) {
      const scenario = (impl, log, keep) => {
        const elements = new Map([
          [length - 1, { type: 'text', text: 'top' }],
          [length - 3, { type: 'thinking', text: 'th' }],
          [length - 4, { type: 'tool-batch', calls: [call('t1')] }],
          [1, { type: 'text', text: 'one' }],
        ])
        const proxy = new Proxy([], {
          get(t, key) {
            if (key === 'length') return length
            if (typeof key === 'string' && /^\d+$/.test(key)) {
              log.push(`get ${key}`)
              return elements.get(Number(key))
            }
            return Reflect.get(t, key)
          },
          set(t, key, value) {
            log.push(`set ${String(key)}`)
            return true
          },
        })
        // Stop walks from going through trillions of holes: the element below the batch throws.
        elements.set(length - 5, new Proxy({}, { get() { throw new Error('walked too far') } }))
        keep(elements.get(length - 1))
        append(impl, proxy, event)
      }
      if (NATIVE || length <= 2 ** 32 - 1) {
        same(scenario)
        continue
      }
      // The WebAssembly build indexes with 32 bits: past that it refuses, changing nothing
      // (events that never read the array, such as `done`, go as with the helper).
      const { addon: wasm } = outcomes(scenario)
      if (!wasm.outcome.threw) {
        same(scenario)
        continue
      }
      assert.deepEqual(wasm.outcome, {
        threw: 'RangeError',
        message: `appendEventToChunks: "chunks" is an array whose "length" is ${length}, more than the WebAssembly build can index (2^32 - 1)`,
      })
      assert.deepEqual(wasm.log, [])
      assert.deepEqual(wasm.data, snapshot({ type: 'text', text: 'top' }))
    }
  }
})

test('pushing onto an array-like of length 2^53 - 1 is refused with a TypeError, as by push', () => {
  const proxy = new Proxy([], { get: (t, k) => (k === 'length' ? 2 ** 53 - 1 : Reflect.get(t, k)), set: () => true })
  assert.throws(() => baseline.appendEventToChunks(proxy, { type: 'notice', message: 'n' }), TypeError)
  assert.throws(() => addon.appendEventToChunks(proxy, { type: 'notice', message: 'n' }), {
    name: 'TypeError',
    message: 'appendEventToChunks: "chunks" is an array whose "length" is the number 9007199254740991, not a whole number below 2^53 - 1',
  })
})

// Holes are walked inside V8 (the time: `npm run bench -- --only sparse`); the result is the helper's.
function sparseArraysMatchTheHelper() {
  for (const event of EVENTS) {
    for (const layout of LAYOUTS) {
      same((impl, _log, keep) => {
        const chunks = keep(layout())
        chunks.length = 100_000
        chunks[50_000] = { type: 'text', text: 'middle' }
        chunks[50_001] = null
        chunks[50_002] = 0
        append(impl, chunks, event)
      })
    }
  }
  // Inherited elements are read through holes, as the helper reads them.
  const inherited = Object.setPrototypeOf([], Object.create(Array.prototype, { 3: { value: { type: 'thinking', text: 'proto' } } }))
  inherited.length = 10
  const seen = []
  for (const impl of Object.values(implementations)) {
    const chunks = Object.setPrototypeOf([], Object.getPrototypeOf(inherited))
    chunks.length = 10
    append(impl, chunks, { type: 'reasoning-end', metadata: { m: 1 } })
    seen.push(Object.getPrototypeOf(chunks)[3].metadata)
    delete Object.getPrototypeOf(chunks)[3].metadata
  }
  assert.deepEqual(seen[1], seen[0])
}

test('a push of the caller\'s own (an Array subclass, an observable array) is called, as by the helper', () => {
  class Observed extends Array {
    push(...items) {
      this.pushes = (this.pushes ?? 0) + 1
      return super.push(...items)
    }
  }
  for (const event of EVENTS) {
    for (const layout of LAYOUTS) {
      same((impl, _log, keep) => {
        const chunks = keep(Observed.from(layout()))
        for (const chunk of chunks) if (chunk.calls) chunk.calls = Observed.from(chunk.calls)
        append(impl, chunks, event)
      })
    }
  }
  same((impl, _log, keep) => impl.applySystemEvent(keep(Observed.from([])), { kind: 'notice', text: 't' }, () => 'id'))
})

test('holes inside calls and a length getter that pushes: the helper\'s result', () => {
  const withHoles = [
    () => [{ type: 'tool-batch', calls: [call('t1'), , ] }],
    () => [{ type: 'tool-batch', calls: [, call('t1')] }],
    () => [{ type: 'tool-batch', calls: [call('t1'), null] }],
  ]
  for (const layout of withHoles) {
    for (const event of [EVENTS[3], EVENTS[5], EVENTS[6]]) same((impl, _log, keep) => append(impl, keep(layout()), event))
  }
  // Reading the length has a side effect: it adds a chunk the first time.
  for (const layout of LAYOUTS) {
    for (const event of EVENTS) {
      same((impl, log, keep) => {
        const target = layout()
        let reads = 0
        const chunks = new Proxy(target, {
          get(t, key, receiver) {
            if (key === 'length' && reads++ === 0) t.push({ type: 'text', text: 'from length' })
            return Reflect.get(t, key, receiver)
          },
        })
        keep(target)
        append(impl, chunks, event)
        log.push(reads)
      })
    }
  }
})
