// How a push brings a Conversation's JavaScript messages up to date. The pushes most made
// (a streamed delta, a frame that changes nothing) are synced and reported in one call
// into V8 where the compiled mechanics run; the others through N-API one step at a time,
// as everything is where code from text may not run. Both ways must give the same
// messages, the same objects and the same reports.
import test from 'node:test'
import assert from 'node:assert/strict'
import addon, { Conversation } from '../index.js'

const plain = (value) => JSON.parse(JSON.stringify(value))
const delta = (text) => JSON.stringify({ type: 'text-delta', delta: text }) + '\n'
const reasoning = (text) => JSON.stringify({ type: 'reasoning-delta', delta: text }) + '\n'

/** Runs `body` with the compiled mechanics on, then off; returns both results. */
function bothWays(body) {
  const compiled = addon.__mechanicsForTest()
  try {
    return [true, false].map((use) => {
      addon.__mechanicsForTest(use)
      return body()
    })
  } finally {
    addon.__mechanicsForTest(compiled)
  }
}

const PUSHES = [
  '{"type":"turn-start","turnId":"t1"}\n',
  delta('Hel'),
  delta('lo \uD83D'),
  delta('\uDE00'),
  '\n',
  delta(''),
  reasoning('think'),
  reasoning('ing'),
  delta('again'),
  '{"type":"tool-call","toolCall":{"id":"c1","name":"bash","arguments":{}}}\n',
  '{"type":"turn-start","turnId":"t2"}\n',
  delta('next'),
]

test('a streamed delta and a frame that changes nothing are synced and reported alike both ways', () => {
  const [compiled, stepwise] = bothWays(() => {
    const live = new Conversation({ format: 'events' })
    const reports = []
    const seen = []
    for (const data of PUSHES) {
      const changes = live.push(data)
      reports.push(plain(changes))
      seen.push(changes)
      // Each report is an object of its own, the caller's to keep or change.
      changes.added.push(-1)
    }
    reports.push(plain(live.end()))
    return { reports, messages: plain(live.messages), distinct: new Set(seen).size === seen.length }
  })
  assert.deepEqual(compiled, stepwise)
  assert.ok(compiled.distinct)
  assert.deepEqual(compiled.reports[2], { added: [], changed: [{ index: 0, chunks: [0] }] })
  assert.deepEqual(compiled.reports[4], { added: [], changed: [] })
  assert.equal(compiled.messages[0].chunks[0].text, 'Hello \u{1F600}', 'a surrogate pair cut between deltas is joined')
})

test('a streamed delta appends to the text where it is: the chunk and message objects stay', () => {
  bothWays(() => {
    const live = new Conversation({ format: 'events' })
    live.push(PUSHES[0])
    live.push(delta('a'))
    const message = live.messages[0]
    const chunk = message.chunks[0]
    live.push(delta('b'))
    assert.equal(live.messages[0], message)
    assert.equal(live.messages[0].chunks[0], chunk)
    assert.equal(chunk.text, 'ab')
  })
})

test('a text the caller froze stays as it is, both ways, and the conversation goes on', () => {
  const [compiled, stepwise] = bothWays(() => {
    const live = new Conversation({ format: 'events' })
    live.push(PUSHES[0])
    live.push(delta('a'))
    Object.freeze(live.messages[0].chunks[0])
    const changes = plain(live.push(delta('b')))
    return { changes, held: live.messages[0].chunks[0].text, resumed: live.resume.messages }
  })
  assert.deepEqual(compiled, stepwise)
  assert.equal(compiled.held, 'a')
})

test('in immutable mode a streamed delta makes new objects, as before', () => {
  const [compiled, stepwise] = bothWays(() => {
    const live = new Conversation({ format: 'events', mode: 'immutable' })
    live.push(PUSHES[0])
    live.push(delta('a'))
    const before = live.messages
    const changes = plain(live.push(delta('b')))
    const after = live.messages
    return { changes, renewed: before !== after && before[0] !== after[0], text: after[0].chunks[0].text, old: before[0].chunks[0].text }
  })
  assert.deepEqual(compiled, stepwise)
  assert.deepEqual(compiled, { changes: { added: [], changed: [{ index: 0, chunks: [0] }] }, renewed: true, text: 'ab', old: 'a' })
})

// AG-UI: a call's input streams as TOOL_CALL_ARGS deltas. Each grows the call where it is
// (its `arguments` and `meta.agUi.arguments`, the text it holds until the call ends), and a
// call started, ended or answered is made anew alone, not its whole batch.
const sse = (...events) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')
const CALL_PUSHES = [
  sse({ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'TEXT_MESSAGE_START', messageId: 'a', role: 'assistant' }),
  sse({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 'Reading.' }),
  sse({ type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'read', parentMessageId: 'a' }),
  sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"path":"a' }),
  sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '.txt \uD83D' }),
  sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '\uDE00' }),
  sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '' }),
  sse({ type: 'TOOL_CALL_START', toolCallId: 'c2', toolCallName: 'bash', parentMessageId: 'a' }),
  sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c2', delta: '{"command":' }),
  // Two calls grown in one push, one of them twice.
  sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '"' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c2', delta: '"ls' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '}' }),
  sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c2', delta: '"', metadata: { step: 1 } }),
  sse({ type: 'TOOL_CALL_END', toolCallId: 'c1' }),
  sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c2', delta: '}' }),
  sse({ type: 'TOOL_CALL_RESULT', messageId: 'r1', toolCallId: 'c1', content: 'text' }),
  sse({ type: 'TOOL_CALL_END', toolCallId: 'c2' }, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }),
]

test('a call streaming its input grows where it is, and equals the stream read whole after every push, both ways', () => {
  const [compiled, stepwise] = bothWays(() => {
    const live = new Conversation({ format: 'ag-ui' })
    const reports = []
    const states = []
    for (const [n, data] of CALL_PUSHES.entries()) {
      reports.push(plain(live.push(data)))
      const whole = new Conversation({ format: 'ag-ui' })
      whole.push(CALL_PUSHES.slice(0, n + 1).join(''))
      assert.deepEqual(plain(live.messages), plain(whole.messages), `after push ${n}`)
      states.push(plain(live.messages))
    }
    return { reports, states }
  })
  assert.deepEqual(compiled, stepwise)
  const call = (n, id) => compiled.states[n][0].chunks[1].calls.find((c) => c.id === id)
  assert.equal(call(5, 'c1').arguments, '{"path":"a.txt \u{1F600}', 'a surrogate pair cut between deltas is joined')
  assert.deepEqual(call(5, 'c1').meta, { agUi: { arguments: '{"path":"a.txt \u{1F600}' } })
  assert.deepEqual(call(11, 'c1').arguments, { path: 'a.txt \u{1F600}' })
  assert.equal(call(11, 'c1').meta, undefined, 'an ended call holds its parsed input alone')
  assert.deepEqual(compiled.reports[4], { added: [], changed: [{ index: 0, chunks: [1] }] })
  assert.deepEqual(compiled.reports[6], { added: [], changed: [] }, 'an empty delta changes nothing')
})

test('a streamed input, a call started and a call answered keep the batch and the other calls', () => {
  bothWays(() => {
    const live = new Conversation({ format: 'ag-ui' })
    for (const data of CALL_PUSHES.slice(0, 4)) live.push(data)
    const batch = live.messages[0].chunks[1]
    const calls = batch.calls
    const first = calls[0]
    live.push(CALL_PUSHES[4])
    assert.equal(live.messages[0].chunks[1], batch)
    assert.equal(batch.calls, calls)
    assert.equal(calls[0], first, 'a call grown is the same object')
    assert.equal(first.arguments, '{"path":"a.txt \uD83D')
    for (const data of CALL_PUSHES.slice(5, 8)) live.push(data)
    assert.equal(batch.calls, calls)
    assert.equal(calls[0], first, 'a call started after it leaves it as it is')
    assert.equal(calls.length, 2)
    // Its first delta gives it an input it had not: it is made anew.
    live.push(CALL_PUSHES[8])
    const second = calls[1]
    live.push(CALL_PUSHES[9])
    assert.deepEqual([calls[0], calls[1]], [first, second], 'two calls grown in one push')
    live.push(CALL_PUSHES[10])
    assert.equal(calls[0], first)
    assert.notEqual(calls[1], second, 'a delta with metadata makes its call anew')
    const metadata = calls[1]
    live.push(CALL_PUSHES[11])
    assert.notEqual(calls[0], first, 'an ended call is made anew')
    assert.equal(calls[1], metadata, 'the other call is left as it is')
  })
})

test('a call object the caller replaced or emptied is made anew with its batch, and the conversation goes on', () => {
  const [compiled, stepwise] = bothWays(() => {
    const live = new Conversation({ format: 'ag-ui' })
    for (const data of CALL_PUSHES.slice(0, 4)) live.push(data)
    live.messages[0].chunks[1].calls[0] = 'not a call'
    live.push(CALL_PUSHES[4])
    const replaced = plain(live.messages)
    delete live.messages[0].chunks[1].calls[0].meta
    live.push(CALL_PUSHES[5])
    return { replaced, emptied: plain(live.messages), resumed: live.resume.messages }
  })
  assert.deepEqual(compiled, stepwise)
  assert.equal(compiled.replaced[0].chunks[1].calls[0].arguments, '{"path":"a.txt \uD83D')
  assert.equal(compiled.emptied[0].chunks[1].calls[0].arguments, '{"path":"a.txt \u{1F600}')
  assert.equal(compiled.emptied[0].chunks[1].calls[0].meta, undefined, 'what the caller took away is not put back')
})

// A hostile but legal caller: what it does to its own batch, calls and their `meta`
// (freezing, Proxies, getters and setters that throw or call back) is its own. A refused
// write stays refused, its own exception goes on, a call back into the conversation is
// refused as busy; the conversation goes on, the same both ways, and what it knows (its
// resume state, the AG-UI events it serves) stays that of the stream read whole.
const whole = (n, options = {}) => {
  const live = new Conversation({ format: 'ag-ui', ...options })
  live.push(CALL_PUSHES.slice(0, n).join(''))
  return live
}
const RUN = { threadId: 't', runId: 'r' }
const trap = () => {
  throw new Error('trap')
}
const throwing = new Proxy({}, { get: () => trap })
const tell = (error) => `${error?.constructor?.name}: ${error?.message}`

/** Each a change to the batch of a conversation after the first 4 pushes (call c1 streaming its input). */
const TAMPERS = {
  'frozen batch': (batch) => Object.freeze(batch),
  'frozen calls': (batch) => Object.freeze(batch.calls),
  'frozen call': (batch) => Object.freeze(batch.calls[0]),
  'frozen meta.agUi': (batch) => Object.freeze(batch.calls[0].meta.agUi),
  'frozen meta and all in it': (batch) => Object.freeze(Object.freeze(batch.calls[0].meta).agUi),
  'calls not extensible': (batch) => Object.preventExtensions(batch.calls),
  'calls a Proxy whose traps throw': (batch) => (batch.calls = new Proxy(batch.calls, throwing)),
  'calls a Proxy that logs': (batch, log) => {
    batch.calls = new Proxy(batch.calls, { get: (target, key, receiver) => (log.push(`get ${String(key)}`), Reflect.get(target, key, receiver)), set: (target, key, value, receiver) => (log.push(`set ${String(key)}`), Reflect.set(target, key, value, receiver)) })
  },
  'calls a getter that logs': (batch, log) => {
    const calls = batch.calls
    Object.defineProperty(batch, 'calls', { get: () => (log.push('calls'), calls), enumerable: true })
  },
  'a call a getter that logs': (batch, log) => {
    const call = batch.calls[0]
    Object.defineProperty(batch.calls, 0, { get: () => (log.push('call'), call), enumerable: true })
  },
  'calls a Proxy that answers other values': (batch) => {
    batch.calls = new Proxy(batch.calls, { get: (target, key) => (key === 'length' ? 2 ** 40 : key === '0' ? 'other' : Reflect.get(target, key)) })
  },
  'a call a Proxy whose traps throw': (batch) => (batch.calls[0] = new Proxy(batch.calls[0], throwing)),
  'a call a Proxy that answers other values': (batch) => {
    batch.calls[0] = new Proxy(batch.calls[0], { get: (target, key) => (key === 'arguments' ? 42 : key === 'meta' ? { agUi: 'x' } : Reflect.get(target, key)), set: () => false })
  },
  'calls a string': (batch) => (batch.calls = 'calls'),
  'calls an array-like': (batch) => (batch.calls = { length: 1, 0: batch.calls[0] }),
  'calls of a huge length': (batch) => (batch.calls.length = 2 ** 32 - 1),
  'arguments a getter that throws': (batch) => Object.defineProperty(batch.calls[0], 'arguments', { get: trap, set() {} }),
  'arguments a setter that throws': (batch) => Object.defineProperty(batch.calls[0], 'arguments', { get: () => '', set: trap }),
  'meta a getter that throws': (batch) => Object.defineProperty(batch.calls[0], 'meta', { get: trap }),
  'meta.agUi a setter that throws': (batch) => Object.defineProperty(batch.calls[0].meta.agUi, 'arguments', { get: () => '', set: trap }),
  'the batch a Proxy whose traps throw': (batch, log, live) => (live.messages[0].chunks[1] = new Proxy(batch, throwing)),
}

for (const mode of ['mutable', 'immutable']) {
  test(`a batch the caller froze, proxied or gave throwing accessors: the conversation goes on, the same both ways (${mode})`, () => {
    const n = CALL_PUSHES.length
    const truth = whole(n, { mode })
    truth.end()
    const served = (() => {
      const live = new Conversation({ format: 'ag-ui', mode })
      return CALL_PUSHES.map((data) => (live.push(data), live.toAGUIEvents(RUN)))
    })()
    for (const [name, tamper] of Object.entries(TAMPERS)) {
      const [compiled, stepwise] = bothWays(() => {
        const live = new Conversation({ format: 'ag-ui', mode })
        const log = []
        const outcomes = []
        const events = []
        for (const [k, data] of CALL_PUSHES.entries()) {
          if (k === 4) tamper(live.messages[0].chunks[1], log, live)
          try {
            outcomes.push(plain(live.push(data)))
          } catch (error) {
            outcomes.push(tell(error))
          }
          events.push(live.toAGUIEvents(RUN))
        }
        outcomes.push(plain(live.end()))
        return { outcomes, log, events, resumed: live.resume.messages, length: live.length }
      })
      assert.deepEqual(compiled, stepwise, `${name}: both ways alike`)
      assert.deepEqual(compiled.resumed, plain(truth.resume.messages), `${name}: the conversation is the stream read whole`)
      assert.deepEqual(compiled.events, served, `${name}: the events served are those of the stream`)
      assert.equal(compiled.length, truth.length, name)
      for (const outcome of compiled.outcomes) {
        if (typeof outcome === 'string') assert.equal(outcome, 'Error: trap', `${name}: only the caller's own exception is thrown`)
      }
    }
  })
}

test('a getter or setter of a call that calls back into the conversation is refused as busy, and the push goes on, both ways', () => {
  const [compiled, stepwise] = bothWays(() => {
    const live = new Conversation({ format: 'ag-ui' })
    for (const data of CALL_PUSHES.slice(0, 4)) live.push(data)
    const call = live.messages[0].chunks[1].calls[0]
    const refused = []
    const back = () => {
      for (const again of [() => live.push(CALL_PUSHES[5]), () => live.end(), () => live.messages, () => live.toAGUIEvents(RUN), () => live.resume]) {
        try {
          again()
          refused.push('ran')
        } catch (error) {
          refused.push(tell(error))
        }
      }
    }
    let held = call.arguments
    const meta = call.meta
    Object.defineProperty(call, 'arguments', { get: () => (back(), held), set: (value) => (back(), (held = value)), enumerable: true, configurable: true })
    Object.defineProperty(call, 'meta', { get: () => (back(), meta), enumerable: true, configurable: true })
    const changes = plain(live.push(CALL_PUSHES[4]))
    return { changes, refused, held, resumed: live.resume }
  })
  assert.deepEqual(compiled, stepwise)
  assert.equal(compiled.refused.length, 3 * 5, 'the getter, the setter and the getter of meta each ran once')
  for (const refusal of compiled.refused) assert.match(refusal, /^TypeError: Conversation\.\w+: Conversation\.\w+ called while this conversation is busy/)
  assert.equal(compiled.held, '{"path":"a.txt \uD83D', 'the input grew through the setter')
  assert.deepEqual(compiled.resumed, plain(whole(5).resume))
})

test('a getter that throws in a push that also adds a message: the exception goes on, and so do the messages, both ways', () => {
  const more = [
    sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: 'b' }, { type: 'TEXT_MESSAGE_START', messageId: 'b', role: 'assistant' }),
    sse({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'b', delta: 'more' }),
    sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: 'c' }),
  ]
  const [compiled, stepwise] = bothWays(() => {
    const live = new Conversation({ format: 'ag-ui' })
    for (const data of CALL_PUSHES.slice(0, 4)) live.push(data)
    const call = live.messages[0].chunks[1].calls[0]
    let held = call.arguments
    let once = true
    const get = () => {
      if (once) trap((once = false))
      return held
    }
    Object.defineProperty(call, 'arguments', { get, set: (value) => (held = value), enumerable: true, configurable: true })
    let thrown
    try {
      live.push(more[0])
    } catch (error) {
      thrown = tell(error)
    }
    const states = [plain(live.messages)]
    const reports = more.slice(1).map((data) => {
      const report = plain(live.push(data))
      states.push(plain(live.messages))
      return report
    })
    return { thrown, reports, states, resumed: live.resume }
  })
  assert.deepEqual(compiled, stepwise)
  assert.equal(compiled.thrown, 'Error: trap', "the caller's own exception")
  compiled.states.forEach((state, k) => {
    const read = new Conversation({ format: 'ag-ui' })
    read.push(CALL_PUSHES.slice(0, 4).join('') + more.slice(0, k + 1).join(''))
    assert.deepEqual(state, plain(read.messages), `after push ${k}: the messages are those of the stream read whole`)
  })
  assert.deepEqual(compiled.reports[0], { added: [], changed: [{ index: 1, chunks: [0] }] })
})

test('workers terminated at random times while a call streams its input: the process lives on (in a child process)', async () => {
  const { execFile } = await import('node:child_process')
  const child = new URL('./hostile-calls-child.mjs', import.meta.url).pathname
  const out = await new Promise((resolve, reject) => {
    execFile(process.execPath, [child, '24'], { timeout: 120_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)))
  })
  assert.equal(out.trim(), 'ok 24')
})

test("a text or input the caller made an object grows as `+` grows it, both ways: its primitive value asked for with no hint", () => {
  const objects = {
    'valueOf before toString': () => ({ valueOf: () => 'V', toString: () => 'S' }),
    'Symbol.toPrimitive given "default"': () => ({ [Symbol.toPrimitive]: (hint) => hint }),
    'a Date': () => new Date(0),
    'valueOf answering an object': () => ({ valueOf: () => ({}), toString: () => 'S' }),
    'no primitive at all': () => ({ valueOf: () => ({}), toString: () => ({}) }),
    'Symbol.toPrimitive not a function': () => ({ [Symbol.toPrimitive]: 1 }),
    'Symbol.toPrimitive answering an object': () => ({ [Symbol.toPrimitive]: () => ({}) }),
    'a symbol': () => Symbol('s'),
  }
  for (const [name, make] of Object.entries(objects)) {
    const [compiled, stepwise] = bothWays(() => {
      const text = new Conversation({ format: 'events' })
      text.push(PUSHES[0])
      text.push(delta('a'))
      text.messages[0].chunks[0].text = make()
      const input = new Conversation({ format: 'ag-ui' })
      for (const data of CALL_PUSHES.slice(0, 4)) input.push(data)
      input.messages[0].chunks[1].calls[0].arguments = make()
      const grown = []
      for (const [live, data, read] of [
        [text, delta('b'), () => text.messages[0].chunks[0].text],
        [input, CALL_PUSHES[4], () => input.messages[0].chunks[1].calls[0].arguments],
      ]) {
        try {
          live.push(data)
          grown.push(String(read()))
        } catch (error) {
          grown.push(tell(error))
        }
      }
      return grown
    })
    let expected
    try {
      expected = make() + 'b'
    } catch (error) {
      expected = tell(error)
    }
    assert.deepEqual(compiled, stepwise, name)
    assert.equal(compiled[0], expected, name)
  }
})

test('messages the caller froze, cut or replaced: the conversation goes on, each push synced as it can be, the same both ways', () => {
  const tampers = {
    'a frozen array': (live) => Object.freeze(live.messages),
    'an array cut short': (live) => (live.messages.length = 0),
    'a message replaced': (live) => (live.messages[0] = 'message'),
    'chunks replaced': (live) => (live.messages[0].chunks = null),
  }
  const pushes = [...CALL_PUSHES.slice(0, 13), sse({ type: 'TEXT_MESSAGE_START', messageId: 'b', role: 'assistant' }), sse({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'b', delta: 'x' }), sse({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'b', delta: 'y' })]
  const truth = new Conversation({ format: 'ag-ui' })
  truth.push(pushes.join(''))
  for (const [name, tamper] of Object.entries(tampers)) {
    for (const at of [2, 4, 13]) {
      const [compiled, stepwise] = bothWays(() => {
        const live = new Conversation({ format: 'ag-ui' })
        const reports = pushes.map((data, k) => {
          if (k === at) tamper(live)
          return plain(live.push(data))
        })
        return { reports, messages: plain(live.messages), resumed: live.resume.messages }
      })
      assert.deepEqual(compiled, stepwise, `${name} at ${at}`)
      assert.deepEqual(compiled.resumed, plain(truth.resume.messages), `${name} at ${at}`)
    }
  }
})
