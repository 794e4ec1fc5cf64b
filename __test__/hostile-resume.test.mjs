// Going on from a kept state under hostile but legal use: frozen, Proxy-wrapped and
// getter-throwing states and messages, numbers out of range, cycles, bigints, deep
// nesting, a state of another format or other messages, prototype keys and lone
// surrogates, and states mutated at random. Each is an exact resume or a TypeError
// naming the field; the caller's objects are left as they were; nothing crashes.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { inspect } from 'node:util'

import { Conversation, foldStream } from '../index.js'
import { STREAM_SAMPLES } from './table.mjs'

const example = (name) => readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8')
const text = example('ai-sdk-stream.sse')
const cut = text.indexOf('\n\n', text.length / 2) + 2
const whole = foldStream(text, { format: 'ai-sdk' })
const head = foldStream(text.slice(0, cut), { format: 'ai-sdk' })
/** Options to go on from the cut: fresh copies the test may change. */
const kept = () => ({ format: 'ai-sdk', messages: structuredClone(head.messages), resume: structuredClone(head.resume) })

/** Goes on from `options` and checks that it ends as the whole recording, and that `options` is unchanged. */
function resumesExactly(options, label) {
  const before = JSON.stringify(options)
  const live = new Conversation(options)
  live.push(text.slice(cut))
  live.end()
  assert.deepEqual(live.messages, whole.messages, label)
  assert.equal(JSON.stringify(options), before, `${label}: the caller's objects are as they were`)
}

/** Everything `value` holds, cycles and bigints included. */
const snapshot = (value) => inspect(value, { depth: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity, breakLength: Infinity })

/** A TypeError with exactly `message`, and `options` unchanged. */
function refused(options, message, label = message) {
  const before = snapshot(options)
  assert.throws(
    () => new Conversation(options),
    (error) => {
      assert.ok(error instanceof TypeError, `${label}: a TypeError, got ${error?.constructor?.name}: ${error?.message}`)
      if (message instanceof RegExp) assert.match(error.message, message, label)
      else assert.equal(error.message, message, label)
      return true
    },
  )
  assert.equal(snapshot(options), before, `${label}: unchanged`)
}

const deepFreeze = (value) => {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}

test('frozen, Proxy-wrapped, prototype-keyed and surrogate-holding states go on exactly', () => {
  resumesExactly(kept(), 'as kept')
  resumesExactly(deepFreeze(kept()), 'deeply frozen')
  const traps = []
  const logging = (target) => new Proxy(target, { get: (t, k, r) => (traps.push(k), Reflect.get(t, k, r)), ownKeys: (t) => (traps.push('ownKeys'), Reflect.ownKeys(t)) })
  const proxied = kept()
  resumesExactly({ ...proxied, resume: logging(proxied.resume), messages: logging(proxied.messages) }, 'Proxies of the state and the messages')
  assert.ok(traps.length > 0, 'read through the Proxies')
  // `__proto__` as an own key (as JSON.parse makes it) is a key like any other.
  const polluted = kept()
  polluted.resume = JSON.parse(JSON.stringify(polluted.resume).replace('{', '{"__proto__":{"polluted":1},'))
  polluted.resume.fold = JSON.parse(JSON.stringify(polluted.resume.fold).replace('{', '{"__proto__":{"polluted":1},'))
  resumesExactly(polluted, '__proto__ keys')
  assert.equal({}.polluted, undefined, 'no prototype changed')
})

test('lone surrogates in the ids and text the state holds go on exactly', () => {
  // Part ids and deltas with unpaired surrogates (as JSON escapes), cut inside the part.
  const odd = text.replaceAll('txt_1', 'txt_\\ud800').replaceAll('"delta":"', '"delta":"\\udc00')
  assert.notEqual(odd, text)
  const at = odd.indexOf('\n\n', odd.length / 2) + 2
  const all = foldStream(odd, { format: 'ai-sdk' })
  const kept = foldStream(odd.slice(0, at), { format: 'ai-sdk' })
  assert.match(JSON.stringify(kept.resume), /\\ud800/, 'the state holds the id as it is')
  const live = new Conversation({ format: 'ai-sdk', ...JSON.parse(JSON.stringify(kept)) })
  live.push(odd.slice(at))
  live.end()
  assert.deepEqual(live.messages, all.messages)
  assert.match(JSON.stringify(live.messages), /\\udc00/)
})

test('a getter that throws, or a toJSON, is the caller\'s own: its error as it is, no conversation', () => {
  const boom = new RangeError('boom')
  const getter = kept()
  Object.defineProperty(getter.resume, 'line', { get() { throw boom }, enumerable: true })
  assert.throws(() => new Conversation(getter), (error) => error === boom)
  const options = kept()
  Object.defineProperty(options, 'resume', { get() { throw boom } })
  assert.throws(() => new Conversation(options), (error) => error === boom)
  const toJSON = kept()
  toJSON.resume.toJSON = () => 5
  refused(toJSON, "Conversation: options.resume must be an object (a Conversation's resume), got number")
})

test('numbers out of range, of another type, or bigints: a TypeError naming the field', () => {
  for (const line of [1e300, 2 ** 32, -1, NaN, 1.5, '7', Infinity, null]) {
    refused({ ...kept(), resume: { ...kept().resume, line } }, 'Conversation: options.resume.line must be a whole number from 0', `line ${String(line)}`)
  }
  refused({ ...kept(), resume: { ...kept().resume, messages: 0.5 } }, 'Conversation: options.resume.messages must be a whole number from 0')
  refused({ ...kept(), resume: { ...kept().resume, version: 2 } }, 'Conversation: options.resume.version 2 is not one this version reads (1)')
  refused({ ...kept(), resume: { ...kept().resume, line: 5n } }, 'Conversation: "options.resume.line" is a bigint, which JSON has no form for')
  refused({ ...kept(), resume: { ...kept().resume, fold: { ...kept().resume.fold, parts: { text: { t: 1n } } } } }, 'Conversation: "options.resume.fold.parts.text.t" is a bigint, which JSON has no form for')
  const messages = kept()
  messages.messages[0].chunks[0].count = 2n
  refused(messages, 'Conversation: "options.messages[0].chunks[0].count" is a bigint, which JSON has no form for')
})

test('a cycle is a TypeError naming the field and the property that closes it', () => {
  const state = kept()
  state.resume.fold.self = state.resume
  refused(state, /^Conversation: "options\.resume" holds itself \(a cycle\), which JSON has no form for: Converting circular structure to JSON[^]*property 'self' closes the circle$/)
  const messages = kept()
  messages.messages[0].chunks.push(messages.messages)
  refused(messages, /^Conversation: "options\.messages" holds itself \(a cycle\)/)
  const live = new Conversation({ format: 'events' })
  const frame = { type: 'text-delta', delta: 'x' }
  frame.again = frame
  assert.throws(() => live.push(frame), (error) => error instanceof TypeError && /^Conversation\.push: "data" holds itself \(a cycle\)/.test(error.message))
  assert.throws(() => live.push({ type: 'text-delta', delta: 'x', n: 1n }), { name: 'TypeError', message: 'Conversation.push: "data.n" is a bigint, which JSON has no form for' })
  assert.deepEqual(live.messages, [], 'nothing was folded')
})

test('deep nesting: past the reader\'s limit a TypeError with the column; past JSON.stringify\'s own, its RangeError', () => {
  let deep = {}
  for (let i = 0; i < 600; i++) deep = { a: deep }
  refused({ ...kept(), resume: { ...kept().resume, fold: { ...kept().resume.fold, deep } } }, /^Conversation: options\.resume: JSON nested deeper than the limit of 512 arrays and objects, at column \d+$/)
  let deeper = {}
  for (let i = 0; i < 100_000; i++) deeper = { a: deeper }
  assert.throws(() => new Conversation({ ...kept(), resume: { ...kept().resume, fold: deeper } }), RangeError)
})

test('a state of another format, of other messages or of no format at all is refused by name', () => {
  refused({ ...kept(), format: 'acp' }, "Conversation: options.resume.format is 'ai-sdk', not this conversation's 'acp'")
  refused({ ...kept(), resume: { ...kept().resume, format: 'acp' } }, "Conversation: options.resume.format is 'acp', not this conversation's 'ai-sdk'")
  refused({ ...kept(), resume: { ...kept().resume, format: 'ai-sdk\uD800' } }, 'Conversation: options.resume.format "ai-sdk\\ud800" is no format\'s name')
  refused({ ...kept(), messages: [] }, 'Conversation: options.resume.messages: the state goes with 1 messages, 0 were given')
  for (const [resume, got] of [[[], 'array'], [null, 'null'], [() => 1, 'function'], [new Date(0), 'string']]) {
    refused({ ...kept(), resume }, `Conversation: options.resume must be an object (a Conversation's resume), got ${got}`)
  }
})

test('states and messages mutated at random: an exact resume or a TypeError naming the field, never a crash', async () => {
  // In a child process: a panic would abort it, not the test runner.
  const child = fileURLToPath(new URL('./hostile-resume-child.mjs', import.meta.url))
  const out = await new Promise((resolve, reject) => {
    execFile(process.execPath, [child, '1500'], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)))
  })
  const { outcomes, rounds } = JSON.parse(out)
  assert.equal(rounds, 1500)
  const other = Object.keys(outcomes).filter((key) => key !== 'resumed' && !key.startsWith('TypeError: Conversation: options.'))
  assert.deepEqual(other, [], 'every refusal is a TypeError naming an option')
  assert.ok(outcomes.resumed > 100, 'many go on')
})

test('a state kept after the end, with the whole UI stream written, writes nothing of it again', () => {
  const recording = example('demo-stream.ndjson')
  const first = new Conversation({ format: 'events' })
  first.push(recording)
  first.end()
  const written = first.toUIMessageStream()
  assert.equal(written.match(/"type":"start"/g).length, 1)
  assert.ok(written.endsWith('data: {"type":"finish"}\n\ndata: [DONE]\n\n'))
  const kept = JSON.parse(JSON.stringify({ messages: first.messages, resume: first.resume }))
  const next = new Conversation({ format: 'events', ...kept })
  assert.deepEqual(next.toUIMessageChunks(), [], 'nothing new')
  next.end()
  // Before, the first call moved the writer back onto the finished message, and the end
  // wrote it again from its `start`: a second copy of the answer in the client; and the
  // end marker was written a second time.
  assert.equal(next.toUIMessageStream(), '', 'still nothing new, no second [DONE]')
  next.push(`${JSON.stringify({ type: 'turn-start', turnId: 't2' })}\n${JSON.stringify({ type: 'text-delta', delta: 'more' })}\n`)
  // More after the end goes on: the new turn is a step of the same response (no user
  // message between), continued under the id the client has for it, open until the end.
  const more = next.toUIMessageChunks()
  assert.deepEqual(more.map((chunk) => chunk.type), ['start', 'start-step', 'text-start', 'text-delta'], 'only the new message')
  assert.equal(more[0].messageId, first.messages[0].id)
  next.end()
  assert.equal(
    next.toUIMessageStream(),
    'data: {"type":"text-end","id":"1-0"}\n\ndata: {"type":"finish-step"}\n\ndata: {"type":"finish"}\n\ndata: [DONE]\n\n',
  )
})

/** Every stream format's sample, with its line breaks written as `eol`. */
const streams = (eol) =>
  Object.entries(STREAM_SAMPLES).map(([format, path]) => [format, Buffer.from(readFileSync(new URL(`../${path}`, import.meta.url), 'utf8').replace(/\n/g, eol))])

/** Goes on from `kept` (through JSON) with the bytes from `cut` less its pending ones; the messages at the end. */
function goOn(format, bytes, cut, kept) {
  const state = JSON.parse(JSON.stringify({ messages: kept.messages, resume: kept.resume }))
  const live = new Conversation({ format, ...state })
  live.push(bytes.subarray(cut - state.resume.pending))
  live.end()
  return live.messages
}

test('foldStream of a recording cut inside a frame (one still being written) gives a state that goes on exactly', () => {
  // Before, the torn tail was skipped as cut short with `pending` 0: the rest of its frame
  // came next as a broken frame, and the frame was lost (3,572 of 3,714 such cuts).
  for (const eol of ['\n', '\r\n']) {
    for (const [format, bytes] of streams(eol)) {
      const whole = foldStream(bytes, { format }).messages
      for (let cut = 1; cut < bytes.length; cut += 7) {
        let kept
        try {
          kept = foldStream(bytes.subarray(0, cut), { format })
        } catch {
          continue // a recording of one torn frame alone is no stream yet
        }
        assert.deepEqual(goOn(format, bytes, cut, kept), whole, `${format}, ${JSON.stringify(eol)}, cut at byte ${cut}`)
      }
    }
  }
})

test('a state kept between the CR and the LF of a line break goes on exactly', () => {
  // Before, the LF was read as an empty line of its own: every later line was numbered
  // one further, and ACP's messages named by their line were named otherwise.
  for (const [format, bytes] of streams('\r\n')) {
    const whole = foldStream(bytes, { format }).messages
    for (let cut = bytes.indexOf('\r\n') + 1; cut > 0; cut = bytes.indexOf('\r\n', cut) + 1) {
      const live = new Conversation({ format })
      live.push(bytes.subarray(0, cut))
      assert.equal(live.resume.cr, true)
      assert.deepEqual(goOn(format, bytes, cut, live), whole, `${format}, live, cut after the CR at ${cut}`)
      assert.deepEqual(goOn(format, bytes, cut, foldStream(bytes.subarray(0, cut), { format })), whole, `${format}, foldStream, cut after the CR at ${cut}`)
    }
  }
  assert.equal('cr' in new Conversation({ format: 'events' }).resume, false, 'absent unless true')
})
