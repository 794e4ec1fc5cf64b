// A live Conversation at its edges: bad frames, unknown ones, the frame size limit, bad
// arguments, hostile callers (frozen and Proxy values, re-entrant pushes, foreign
// receivers, a worker ended mid-push), and going on from a loaded history.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { ChunkStream, Conversation, foldStream, readHistory } from '../index.js'

const addon = new URL('../index.js', import.meta.url).pathname
const file = (path) => readFileSync(new URL(`../${path}`, import.meta.url))
const plain = (value) => JSON.parse(JSON.stringify(value))
const delta = (text) => JSON.stringify({ type: 'text-delta', delta: text }) + '\n'

test('a bad frame throws an Error with its line and offset, changes nothing, and the conversation goes on', () => {
  const live = new Conversation({ format: 'events' })
  live.push(delta('a'))
  const before = plain(live.messages)
  assert.throws(() => live.push('{"type":"text-delta","delta":5}\n'), (error) => {
    assert.ok(!(error instanceof TypeError))
    assert.equal(error.line, 2)
    assert.equal(error.offset, delta('a').length)
    assert.match(error.message, /^Conversation\.push: line 2, byte 34: text-delta event: "delta" must be a string, got number$/)
    return true
  })
  assert.deepEqual(plain(live.messages), before)
  assert.deepEqual(live.push('{"type":'), { added: [], changed: [] }, 'an unfinished frame waits')
  const changes = live.push('"text-delta","delta":"b"}\n')
  assert.deepEqual(changes, { added: [], changed: [{ index: 0, chunks: [0] }] })
  assert.deepEqual(plain(live.messages), [{ id: 'turn-1', role: 'assistant', chunks: [{ type: 'text', text: 'ab' }] }])
})

test('frames before a bad one in the same push are folded; the bytes after it wait for the next push', () => {
  const live = new Conversation({ format: 'events' })
  assert.throws(() => live.push(delta('a') + 'nope\n' + delta('b')), (e) => e.line === 2)
  assert.equal(live.messages[0].chunks[0].text, 'a')
  live.push('')
  assert.equal(live.messages[0].chunks[0].text, 'ab')
})

test('a parsed value that is refused throws with its place and changes nothing', () => {
  const live = new Conversation({ format: 'events', mode: 'immutable' })
  live.push({ type: 'text-delta', delta: 'a' })
  const before = live.messages
  assert.throws(() => live.push({ type: 'tool-call', toolCall: { id: 1 } }), (e) => e.line === 2 && /toolCall\.id/.test(e.message))
  assert.equal(live.messages, before)
})

test('unknown frames are skipped and counted; strict refuses them and goes on', () => {
  const unknown = '{"type":"brand-new-event","x":1}\n'
  const lax = new Conversation({ format: 'events' })
  lax.push(delta('a') + unknown + delta('b'))
  assert.deepEqual(lax.skipped, { count: 1, examples: ['line 2: unknown event type "brand-new-event"'], kinds: { 'unknown event type "brand-new-event"': 1 } })
  assert.equal(lax.messages[0].chunks[0].text, 'ab')
  assert.deepEqual(lax.skipped, foldStream(delta('a') + unknown + delta('b'), { format: 'events' }).skipped)

  const strict = new Conversation({ format: 'events', strict: true })
  strict.push(delta('a'))
  assert.throws(() => strict.push(unknown), (e) => e.line === 2 && /strict/.test(e.message))
  strict.push(delta('b'))
  assert.equal(strict.messages[0].chunks[0].text, 'ab')
  assert.equal(strict.skipped.count, 0)
})

test('a frame past the limit is refused as soon as it is seen to be past it, and its rest is dropped as it comes', () => {
  const live = new Conversation({ format: 'events', limit: 100 })
  live.push(delta('a'))
  const big = delta('x'.repeat(1000))
  // Arriving in pieces: refused at the piece that passes the limit, with no line break yet.
  live.push(big.slice(0, 60))
  assert.throws(() => live.push(big.slice(60, 120)), (e) => e.line === 2 && e.offset === delta('a').length && /limit/.test(e.message))
  // The rest of that line is dropped, never parsed as a frame of its own.
  assert.deepEqual(live.push(big.slice(120, 900)), { added: [], changed: [] })
  live.push(big.slice(900) + delta('b'))
  assert.equal(live.messages[0].chunks[0].text, 'ab')
  // Arriving whole, in one push.
  assert.throws(() => live.push(big), (e) => e.line === 4 && /limit/.test(e.message))
  live.push(delta('c'))
  assert.equal(live.messages[0].chunks[0].text, 'abc')
})

test('the limit holds for SSE frames made of many data lines', () => {
  const live = new Conversation({ format: 'events', limit: 64 })
  const line = `data: ${'{"type":"text-delta",'}\n`
  live.push(`data: ${delta('a')}\n`)
  assert.throws(() => {
    for (let i = 0; i < 10; i++) live.push(line)
  }, /limit/)
  live.push(line + '\n')
  live.push(`data: ${delta('b')}\n`)
  assert.equal(live.messages[0].chunks[0].text, 'ab')
})

test('bad arguments are TypeErrors naming what is wrong', () => {
  const cases = [
    [undefined, /options must be an object/],
    [{}, /options\.format must be one of 'acp', 'claude-stream', 'copilot', 'codex-exec', 'opencode-run', 'opencode-events', 'opencode-global', 'pi-events', 'pi-stream', 'sn-stream', 'ag-ui', 'ai-sdk', 'events', got undefined/],
    [{ format: 'pi' }, /options\.format must be one of .*got 'pi'/],
    [{ format: 'events', strict: 1 }, /options\.strict must be a boolean, got number/],
    [{ format: 'events', limit: 0 }, /options\.limit must be a positive whole number/],
    [{ format: 'events', limit: '5' }, /options\.limit must be a number, got string/],
    [{ format: 'events', mode: 'frozen' }, /options\.mode must be 'mutable' or 'immutable'/],
    [{ format: 'events', messages: {} }, /options\.messages must be an array/],
    [{ format: 'events', messages: [{ id: 'a', role: 'robot', chunks: [] }] }, /options\.messages\[0\]/],
  ]
  for (const [options, message] of cases) {
    assert.throws(() => new Conversation(options), (e) => e instanceof TypeError && message.test(e.message), JSON.stringify(options))
  }
  assert.throws(() => Conversation({ format: 'events' }), TypeError)
  const live = new Conversation({ format: 'events' })
  for (const data of [42, null, undefined, () => {}, Symbol('x'), 1n]) {
    assert.throws(() => live.push(data), TypeError, String(typeof data))
  }
  assert.deepEqual(live.messages, [])
})

test('frozen and Proxy values are read, never written', () => {
  const live = new Conversation({ format: 'events' })
  const frozen = Object.freeze({ type: 'tool-call', toolCall: Object.freeze({ id: 'c', name: 'n', arguments: Object.freeze([1]) }) })
  live.push(frozen)
  const proxy = new Proxy({ type: 'tool-result', toolResult: { toolCallId: 'c', result: 'ok', isError: false } }, {})
  live.push(proxy)
  assert.deepEqual(plain(live.messages[0].chunks), [{ type: 'tool-batch', calls: [{ id: 'c', name: 'n', arguments: [1], result: 'ok', isError: false }] }])
  const throwing = new Proxy({}, { ownKeys() { throw new Error('trap') } })
  assert.throws(() => live.push(throwing), /trap/)
  assert.equal(live.messages[0].chunks.length, 1)
})

test('a getter of a pushed value that pushes again: the inner value is read first, nothing breaks', () => {
  const live = new Conversation({ format: 'events' })
  const outer = {
    type: 'text-delta',
    get delta() {
      live.push({ type: 'text-delta', delta: 'inner ' })
      return 'outer'
    },
  }
  live.push(outer)
  assert.equal(live.messages[0].chunks[0].text, 'inner outer')
})

test('methods on a receiver that is not a Conversation throw, and read no memory', () => {
  const { push } = Conversation.prototype
  const getter = (name) => Object.getOwnPropertyDescriptor(Conversation.prototype, name).get
  const { at } = Conversation.prototype
  for (const receiver of [{}, new ChunkStream(), Object.create(Conversation.prototype), null]) {
    assert.throws(() => push.call(receiver, delta('a')))
    assert.throws(() => at.call(receiver, 0))
    for (const name of ['messages', 'length', 'resume']) assert.throws(() => getter(name).call(receiver), name)
  }
})

test('a worker ended in the middle of pushing leaves the process well', () => {
  const child = `
    const { Worker } = require('node:worker_threads')
    const script = \`
      const { parentPort } = require('node:worker_threads')
      const { Conversation } = require(${JSON.stringify(addon)})
      const live = new Conversation({ format: 'events', mode: 'immutable' })
      parentPort.postMessage('ready')
      for (let i = 0; ; i++) live.push('{"type":"text-delta","delta":"' + i + '"}\\\\n' + (i % 50 === 0 ? '{"type":"turn-start"}\\\\n' : ''))
    \`
    const runs = Array.from({ length: 4 }, () => new Promise((resolve) => {
      const worker = new Worker(script, { eval: true })
      worker.once('message', () => setTimeout(() => worker.terminate().then(resolve), 30))
    }))
    Promise.all(runs).then(() => {
      const { Conversation } = require(${JSON.stringify(addon)})
      const live = new Conversation({ format: 'events' })
      live.push('{"type":"text-delta","delta":"still here"}\\n')
      console.log(live.messages[0].chunks[0].text)
    })
  `
  const run = spawnSync(process.execPath, ['-e', child], { encoding: 'utf8', timeout: 60_000 })
  assert.equal(run.status, 0, run.stderr)
  assert.equal(run.stdout, 'still here\n')
})

test('immutable: pushes without a read make no array; the first read after them makes one, sharing what did not change', () => {
  const live = new Conversation({ format: 'events', mode: 'immutable' })
  live.push('{"type":"turn-start","turnId":"a"}\n' + delta('x'))
  const first = live.messages
  const firstMessage = first[0]
  assert.equal(live.messages, first, 'no change: the same array')
  live.push('{"type":"turn-start","turnId":"b"}\n' + delta('y'))
  const b = live.at(1)
  live.push(delta('z'))
  live.push(delta('!'))
  assert.deepEqual(plain(first), [{ id: 'a', role: 'assistant', chunks: [{ type: 'text', text: 'x' }] }], 'an array given is never changed')
  assert.equal(b.chunks[0].text, 'y', 'nor a message given by at')
  const now = live.messages
  assert.notEqual(now, first)
  assert.equal(now[0], firstMessage, 'an unchanged message is the same object')
  assert.equal(now[1].chunks[0].text, 'yz!')
  assert.equal(live.at(1), now[1])
  assert.equal(live.at(-2), firstMessage)
  assert.equal(live.at(2), undefined)
  assert.equal(live.at(-3), undefined)
  assert.equal(live.length, 2)
  for (const index of ['1', 1.5, undefined, null]) assert.throws(() => live.at(index), TypeError, String(index))
})

test('mutable: at and length read the one array', () => {
  const live = new Conversation({ format: 'events' })
  live.push(delta('x'))
  assert.equal(live.at(0), live.messages[0])
  assert.equal(live.length, 1)
})

// ─── Going on from a loaded history ──────────────────────────────────────────────

/** The lines of a file, each with its line break. */
const lines = (bytes) => bytes.toString('utf8').split(/(?<=\n)/)

/**
 * Where a stream holds something its messages do not, so that no history can go on from
 * there: an AI SDK part still open (its id is in the stream alone), an ACP call whose
 * content came before it completed (shown only once it completes).
 */
function hidden(format, frames) {
  const open = new Set()
  for (const frame of frames) {
    if (format === 'ai-sdk') {
      const key = frame.id ?? frame.toolCallId
      if (/-start$/.test(frame.type) && frame.type !== 'start') open.add(key)
      if (/-end$|^tool-input-available$/.test(frame.type)) open.delete(key)
    } else if (format === 'acp') {
      const update = (frame.params ?? frame).update ?? {}
      if (!/^tool_call/.test(update.sessionUpdate ?? '')) continue
      if (['completed', 'failed'].includes(update.status)) open.delete(update.toolCallId)
      else if (update.content?.length) open.add(update.toolCallId)
    }
  }
  return open.size > 0
}

/** The JSON value of a line: an NDJSON line or an SSE `data:` line; other lines hold none. */
const frameOf = (line) => {
  if (/^(event|id|retry):|^:/.test(line)) return undefined
  const text = line.replace(/^data: ?/, '').trim()
  return text && text !== '[DONE]' ? JSON.parse(text) : undefined
}

for (const [format, path] of [
  ['events', 'examples/demo-stream.ndjson'],
  ['events', 'examples/agent-session.sse'],
  ['acp', 'examples/acp-session.ndjson'],
  ['acp', 'examples/acp-v1-load.ndjson'],
  ['ai-sdk', 'examples/ai-sdk-stream.sse'],
]) {
  test(`${format}: a history loaded after any line goes on live to the whole recording (${path})`, () => {
    const all = lines(file(path))
    const whole = readHistory(all.join(''), { format }).messages
    let tried = 0
    for (let cut = 0; cut <= all.length; cut++) {
      if (hidden(format, all.slice(0, cut).map(frameOf).filter(Boolean))) continue
      tried++
      const loaded = readHistory(all.slice(0, cut).join(''), { format }).messages
      for (const mode of ['mutable', 'immutable']) {
        const live = new Conversation({ format, mode, messages: loaded, line: cut + 1 })
        assert.deepEqual(plain(live.messages), loaded)
        live.push(all.slice(cut).join(''))
        live.end()
        assert.deepEqual(plain(live.messages), whole, `cut after line ${cut}, ${mode}`)
      }
    }
    assert.ok(tried > all.length / 2, `${tried} of ${all.length + 1} cuts tried`)
  })
}

for (const [format, path] of [
  ['events', 'examples/agent-session.sse'],
  ['acp', 'examples/acp-session.ndjson'],
  ['acp', 'examples/acp-v1-load.ndjson'],
  ['ai-sdk', 'examples/ai-sdk-stream.sse'],
  ['pi-events', 'examples/pi-events.ndjson'],
  ['pi-stream', 'examples/openclaw-gateway.ndjson'],
  ['sn-stream', 'examples/sn-thinking.sse'],
]) {
  test(`${format}: with its resume state, a recording read up to any line goes on live to the whole recording (${path})`, () => {
    const all = lines(file(path))
    const whole = foldStream(all.join(''), { format }).messages
    for (let cut = 0; cut <= all.length; cut++) {
      // As a page keeps it over a reload.
      const { messages, resume } = JSON.parse(JSON.stringify(foldStream(all.slice(0, cut).join(''), { format })))
      const live = new Conversation({ format, messages, resume })
      live.push(all.slice(cut).join(''))
      live.end()
      assert.deepEqual(plain(live.messages), whole, `cut after line ${cut}`)
    }
  })
}

test('ai-sdk: going on inside an open text part: its next delta extends its chunk, not the last one', () => {
  const frames = [
    { type: 'start', messageId: 'm1' },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'Hel' },
    { type: 'reasoning-start', id: 'r1' },
    { type: 'reasoning-delta', id: 'r1', delta: 'hmm' },
  ]
  const rest = [{ type: 'text-delta', id: 't1', delta: 'lo' }, { type: 'text-end', id: 't1' }]
  const saved = new Conversation({ format: 'ai-sdk' })
  for (const frame of frames) saved.push(frame)
  const kept = JSON.parse(JSON.stringify({ messages: saved.messages, resume: saved.resume }))
  const resumed = new Conversation({ format: 'ai-sdk', ...kept })
  for (const frame of rest) resumed.push(frame)
  const expected = [{ id: 'm1', role: 'assistant', chunks: [{ type: 'text', text: 'Hello' }, { type: 'thinking', text: 'hmm' }] }]
  assert.deepEqual(plain(resumed.messages), expected)
  // The messages alone cannot say which chunk the part is: its delta goes to the last text.
  const guessed = new Conversation({ format: 'ai-sdk', messages: kept.messages })
  for (const frame of rest) guessed.push(frame)
  assert.notDeepEqual(plain(guessed.messages), expected)
})

test('acp: going on between a call\'s content and its completion keeps the content as its result', () => {
  const update = (u) => ({ sessionId: 's', update: u })
  const saved = new Conversation({ format: 'acp' })
  saved.push(update({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Read', status: 'in_progress' }))
  saved.push(update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', content: [{ type: 'content', content: { type: 'text', text: 'file body' } }] }))
  const kept = JSON.parse(JSON.stringify({ messages: saved.messages, resume: saved.resume }))
  assert.equal(kept.messages[0].chunks[0].calls[0].result, undefined, 'not shown before it completes')
  const resumed = new Conversation({ format: 'acp', ...kept })
  resumed.push(update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed' }))
  assert.deepEqual(resumed.messages[0].chunks[0].calls[0].result, [{ type: 'content', content: { type: 'text', text: 'file body' } }])
  assert.equal(resumed.messages[0].id, 'line-1')
})

test('resumed from a state saved after the end, the UI stream is not written again: one finish, one [DONE]', () => {
  const served = (cutAfterDone) => {
    const live = new Conversation({ format: 'events' })
    live.push(delta('Hi'))
    let sse = live.toUIMessageStream()
    live.end()
    if (cutAfterDone) sse += live.toUIMessageStream()
    const kept = JSON.parse(JSON.stringify({ messages: live.messages, resume: live.resume }))
    const resumed = new Conversation({ format: 'events', ...kept })
    sse += resumed.toUIMessageStream()
    resumed.end()
    sse += resumed.toUIMessageStream() + resumed.toUIMessageStream()
    return sse
  }
  const whole = new Conversation({ format: 'events' })
  whole.push(delta('Hi'))
  whole.end()
  const once = whole.toUIMessageStream()
  assert.equal(once.match(/\[DONE\]/g).length, 1)
  assert.equal(served(true), once)
  assert.equal(served(false), once)
})

test('a resume state is checked: its format, its messages, its line, its shape', () => {
  const live = new Conversation({ format: 'events' })
  live.push(delta('a'))
  const { messages, resume } = JSON.parse(JSON.stringify({ messages: live.messages, resume: live.resume }))
  assert.deepEqual(
    { ...resume, fold: undefined, ui: undefined },
    { version: 1, format: 'events', line: 2, messages: 1, open: true, pending: 0, fold: undefined, skipped: { count: 0, examples: [], kinds: {} }, ui: undefined },
  )
  const ui = (change) => ({ ...resume, ui: change(structuredClone(resume.ui)) })
  const written = new Conversation({ format: 'events' })
  written.push(delta('abc'))
  written.push({ type: 'nope' })
  written.toUIMessageChunks()
  const kept = JSON.parse(JSON.stringify({ messages: written.messages, resume: written.resume }))
  const wrote = (change) => ({ ...kept.resume, ui: change(structuredClone(kept.resume.ui)) })
  const cases = [
    [{ format: 'acp', messages, resume }, /options\.resume\.format is 'events', not this conversation's 'acp'/],
    [{ format: 'events', resume }, /options\.resume\.messages: the state goes with 1 messages, 0 were given/],
    [{ format: 'events', messages, resume, line: 7 }, /options\.line \(7\) is not options\.resume\.line \(2\)/],
    [{ format: 'events', messages, resume: 'x' }, /options\.resume must be an object/],
    [{ format: 'events', messages, resume: { ...resume, version: 2 } }, /options\.resume\.version 2/],
    [{ format: 'events', messages, resume: { ...resume, fold: 5 } }, /options\.resume\.fold must be/],
    [{ format: 'events', messages, resume: { ...resume, skipped: [] } }, /options\.resume\.skipped must be an object/],
    [{ format: 'events', messages, resume: { ...resume, skipped: { count: -1 } } }, /options\.resume\.skipped\.count must be a whole number/],
    [{ format: 'events', messages, resume: { ...resume, skipped: { count: 1, examples: [3] } } }, /options\.resume\.skipped\.examples must hold strings/],
    [{ format: 'events', messages, resume: { ...resume, skipped: { count: 1, kinds: { x: 'one' } } } }, /options\.resume\.skipped\.kinds\["x"\] must be a whole number/],
    [{ format: 'events', messages, resume: { ...resume, ui: 'all' } }, /options\.resume\.ui must be an object/],
    [{ format: 'events', messages, resume: ui((u) => ({ ...u, from: 2 })) }, /options\.resume\.ui\.from 2 is past the 1 messages/],
    [{ format: 'events', messages, resume: ui((u) => ({ ...u, touched: [[1, 0]] })) }, /options\.resume\.ui\.touched must hold \[message, chunk\] pairs/],
    [{ format: 'events', ...kept, resume: wrote((u) => ({ ...u, messages: [...u.messages, ...u.messages] })) }, /options\.resume\.ui\.messages holds more messages/],
    [{ format: 'events', ...kept, resume: wrote((u) => (u.messages[0].text = 4, u)) }, /options\.resume\.ui\.messages\[0\]\.text 4 is more than the chunk's 3 bytes/],
    [{ format: 'events', ...kept, resume: wrote((u) => (u.messages[0].chunk = 2, u)) }, /options\.resume\.ui\.messages\[0\]\.chunk 2 is past the message's 1 chunks/],
    [{ format: 'events', ...kept, resume: wrote((u) => (u.messages[0].calls = 1, u)) }, /options\.resume\.ui\.messages\[0\]\.calls 1 is more than the chunk's 0 calls/],
    [{ format: 'events', ...kept, resume: wrote((u) => (u.messages[0].sent = [true], u)) }, /options\.resume\.ui\.messages\[0\]\.sent names 1 calls/],
    [{ format: 'events', ...kept, resume: wrote((u) => (u.messages[0].openThinking = [0], u)) }, /options\.resume\.ui\.messages\[0\]\.openThinking must hold the indexes of thinking chunks/],
    [{ format: 'events', ...kept, resume: wrote((u) => (u.messages[0].started = 1, u)) }, /options\.resume\.ui\.messages\[0\]\.started must be a boolean/],
  ]
  for (const [options, message] of cases) {
    assert.throws(() => new Conversation(options), (e) => e instanceof TypeError && message.test(e.message), message.source)
  }
  const before = structuredClone(kept)
  for (const [options] of cases.slice(-9)) assert.throws(() => new Conversation(options))
  assert.deepEqual(kept, before, "the caller's state is left as it was")
  // A state kept without what was skipped and written: nothing was.
  const older = new Conversation({ format: 'events', ...kept, resume: { ...kept.resume, skipped: undefined, ui: undefined } })
  assert.equal(older.skipped.count, 0)
  assert.deepEqual(older.toUIMessageChunks().map((c) => c.type), ['start', 'start-step', 'text-start', 'text-delta'])
  const carried = new Conversation({ format: 'events', ...kept })
  assert.deepEqual(plain(carried.skipped), plain(written.skipped))
  assert.equal(carried.skipped.count, 1)
  assert.deepEqual(carried.toUIMessageChunks(), [])
  const resumed = new Conversation({ format: 'events', messages, resume, line: 2 })
  assert.throws(() => resumed.push('nope\n'), (e) => e.line === 2)
  live.push('{"type":"text-de')
  assert.equal(live.resume.pending, '{"type":"text-de'.length)
})

test('resume.pending counts the bytes of an unfinished frame as pushed; pushed again after the state, they fold as before', () => {
  const sse = (text) => `event: delta\ndata: ${JSON.stringify({ type: 'text-delta', delta: text })}\n\n`
  for (const frames of [sse('a') + sse('b'), delta('a') + delta('b'), delta('a').replace('\n', '\r\n') + delta('b')])
  for (let cut = 0; cut <= frames.length; cut++) {
    const live = new Conversation({ format: 'events' })
    live.push(frames.slice(0, cut))
    const { messages, resume } = JSON.parse(JSON.stringify({ messages: live.messages, resume: live.resume }))
    const again = new Conversation({ format: 'events', messages, resume })
    again.push(frames.slice(cut - resume.pending))
    again.end()
    assert.deepEqual(plain(again.messages), [{ id: 'turn-1', role: 'assistant', chunks: [{ type: 'text', text: 'ab' }] }], `cut at ${cut}`)
  }
})

// ─── The command reads streams by the same fold ──────────────────────────────────

test('replay --json of every stream example is what a live Conversation shows after its last push', async () => {
  const { run, example } = await import('./cli-helpers.mjs')
  for (const [name, format] of [
    ['acp-session.ndjson', 'acp'],
    ['agent-session.sse', 'events'],
    ['ai-sdk-stream.sse', 'ai-sdk'],
    ['pi-events.ndjson', 'pi-events'],
    ['openclaw-gateway.ndjson', 'pi-stream'],
    ['sn-thinking.sse', 'sn-stream'],
  ]) {
    const bytes = file(`examples/${name}`)
    const live = new Conversation({ format })
    for (let at = 0; at < bytes.length; at += 61) live.push(bytes.subarray(at, at + 61))
    live.end()
    const { code, stdout } = await run(['replay', example(name), '--json'])
    assert.equal(code, 0)
    assert.deepEqual(JSON.parse(stdout), plain(live.messages), name)
  }
})

test('a recording read whole looks past lines that are no JSON before its first frame; live, such a frame is an error', () => {
  // `pi --mode json` captured with its warnings: a line of text before the events.
  const events = file('examples/pi-events.ndjson').toString()
  const captured = `(node:4242) ExperimentalWarning: a notice on stderr\n${events}`
  const read = foldStream(captured, { format: 'pi-events' })
  assert.deepEqual(plain(read.messages), plain(foldStream(events, { format: 'pi-events' }).messages))
  assert.equal(read.skipped.count, 1)
  assert.match(read.skipped.examples[0], /^line 1: a line that is not JSON/)
  // Strict refuses it; a recording of nothing but such lines is refused at its first.
  assert.throws(() => foldStream(captured, { format: 'pi-events', strict: true }), (e) => e.line === 1)
  assert.throws(() => foldStream('a note\nanother note\n', { format: 'pi-events' }), (e) => e.line === 1 && /invalid JSON/.test(e.message))
  // Live, the frame is an error that changes nothing, and the next frame is read.
  const live = new Conversation({ format: 'pi-events' })
  assert.throws(() => live.push('(node:4242) ExperimentalWarning: a notice\n'), (e) => e.line === 1)
  live.push(events)
  assert.deepEqual(plain(live.messages), plain(foldStream(events, { format: 'pi-events' }).messages))
})

test('a result that lands on an earlier tool batch after the last write is written by the conversation gone on from the state', () => {
  const live = new Conversation({ format: 'events' })
  live.push({ type: 'tool-call', toolCall: { id: 'c', name: 'ls', arguments: {} } })
  live.push({ type: 'text-delta', delta: 'running' })
  live.toUIMessageChunks()
  live.push({ type: 'tool-result', toolResult: { toolCallId: 'c', result: 'a.txt', isError: false } })
  // Kept before the result was written.
  const kept = JSON.parse(JSON.stringify({ messages: live.messages, resume: live.resume }))
  const resumed = new Conversation({ format: 'events', ...kept })
  assert.deepEqual(resumed.toUIMessageChunks(), live.toUIMessageChunks())
  assert.deepEqual(
    new Conversation({ format: 'events', ...kept }).toUIMessageChunks(),
    [{ type: 'tool-output-available', toolCallId: 'c', output: 'a.txt' }],
  )
})

test('a resume state does not grow with the stream when the UI stream is not written, nor after', () => {
  const live = new Conversation({ format: 'events' })
  const ui = () => JSON.parse(JSON.stringify(live.resume.ui))
  live.push({ type: 'text-delta', delta: 'a' })
  const early = ui()
  for (let i = 0; i < 50; i++) live.push({ type: 'text-delta', delta: 'b' })
  assert.deepEqual(ui(), early)
  live.toUIMessageChunks()
  live.push({ type: 'text-delta', delta: 'c' })
  const written = ui()
  for (let i = 0; i < 50; i++) live.push({ type: 'text-delta', delta: 'd' })
  assert.deepEqual(ui(), written)
  assert.deepEqual(written.touched, [])
})
