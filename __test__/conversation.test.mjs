// A live Conversation against the reload: for every stream format, random recordings
// (frames of the format's sample files dropped, repeated and mixed, and random agent
// event streams) are pushed a frame at a time, as bytes split anywhere and as parsed
// values. After every push the messages equal `foldStream` (and, for a format with a
// history, `readHistory`) of what was pushed so far; a refused frame changes nothing;
// the change report names everything that changed, and the immutable view shares every
// message and chunk that did not.
import test from 'node:test'
import assert from 'node:assert/strict'
import { isDeepStrictEqual } from 'node:util'
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { Conversation, detectFormat, foldStream, formats, readHistory } from '../index.js'
import { createRng, randomEventStream } from './random-streams.mjs'

const STREAMS = formats().filter((f) => f.stream)
const HISTORY = new Set(STREAMS.filter((f) => f.history).map((f) => f.name))
const FILES = [
  'examples/acp-session.ndjson',
  'examples/acp-v1-load.ndjson',
  'examples/ag-ui-stream.sse',
  'examples/agent-session.sse',
  'examples/ai-sdk-stream.sse',
  'examples/demo-stream.ndjson',
  'examples/openclaw-gateway.ndjson',
  'examples/pi-events.ndjson',
  'examples/pi-session.stream.ndjson',
  'examples/sn-thinking.sse',
  'examples/claude-code-stream.ndjson',
  'examples/claude-code-stream.partial.ndjson',
  'examples/copilot-session.stream.ndjson',
  '__test__/fixtures/pi-drift.stream.ndjson',
  '__test__/fixtures/pi-unannounced.events.ndjson',
  '__test__/fixtures/pi-lost-updates.events.ndjson',
  'examples/codex-exec.jsonl',
  '__test__/fixtures/codex/0.171.0-subagent/stream.jsonl',
  '__test__/fixtures/codex/0.20.0-tool/stream.jsonl',
  'examples/opencode-run.jsonl',
  'examples/opencode-events.sse',
  'examples/opencode-global.sse',
  '__test__/fixtures/opencode/kilo-7.7.7-api-event.sse',
]
const RUNS = Number(process.env.CONVERSATION_RUNS ?? 25)

/** The JSON values of a recorded stream (NDJSON lines or SSE data), in order. */
function values(bytes) {
  const text = bytes.toString('utf8')
  if (/^(data|event|id|retry):|^:/m.test(text.trimStart().split('\n')[0])) {
    return text.split(/\r?\n\r?\n/).map((frame) =>
      frame.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n'),
    ).filter((data) => data && data !== '[DONE]').map((data) => JSON.parse(data))
  }
  return text.split(/\r?\n/).filter((l) => l.trim()).map((l) => JSON.parse(l))
}

/** Per format, the sample recordings' values. */
const CORPUS = {}
for (const path of FILES) {
  const bytes = readFileSync(new URL(`../${path}`, import.meta.url))
  const { format } = detectFormat(bytes)
  ;(CORPUS[format] ??= []).push(values(bytes))
}
test('every stream format has sample recordings here', () => {
  assert.deepEqual(Object.keys(CORPUS).sort(), STREAMS.map((f) => f.name).sort())
})

// A refused frame stays in the recording as a blank line: it is not read, but it is a
// line (formats name some messages by the line they start on).
const ndjson = (frames) => frames.map((v) => (v === undefined ? '' : JSON.stringify(v)) + '\n').join('')
const sse = (frames) => frames.map((v) => `data: ${JSON.stringify(v)}\n\n`).join('')
const plain = (messages) => JSON.parse(JSON.stringify(messages))

/** What reading `frames` whole gives, or `undefined` when it is refused. */
function reload(format, frames) {
  let folded
  try {
    folded = foldStream(ndjson(frames), { format }).messages
  } catch {
    return undefined
  }
  if (HISTORY.has(format)) {
    let history
    try {
      history = readHistory(ndjson(frames), { format }).messages
    } catch (error) {
      assert.fail(`readHistory refuses what foldStream reads: ${error.message}\n${ndjson(frames)}`)
    }
    assert.deepEqual(history, folded, 'readHistory = foldStream')
  }
  return folded
}

/** Checks that `changes` names every difference between `before` and `after`. */
function checkReport(before, after, changes) {
  if (changes.reset) {
    // The messages were replaced whole (a restatement that removed or moved some): read again.
    assert.deepEqual([changes.added, changes.changed], [[], []], 'a reset names no message')
    return assert.notDeepEqual(after.map((m) => m.id), before.map((m) => m.id), 'a reset moves or removes messages')
  }
  const added = new Set(changes.added)
  assert.deepEqual(changes.added, after.map((_, i) => i).filter((i) => i >= before.length), 'added')
  const changed = new Map(changes.changed.map((c) => [c.index, c]))
  before.forEach((message, i) => {
    assert.ok(!added.has(i))
    const report = changed.get(i)
    if (!report) return assert.deepEqual(after[i], message, `message ${i} changed unreported`)
    if (!report.renamed) assert.equal(after[i].id, message.id, `message ${i} renamed unreported`)
    // From `replaced` on the chunks are new, and may be fewer.
    const replaced = report.replaced ?? Infinity
    message.chunks.forEach((chunk, j) => {
      if (!report.chunks.includes(j) && j < replaced) assert.deepEqual(after[i].chunks[j], chunk, `chunk ${i}.${j} changed unreported`)
    })
    for (let j = replaced; j < after[i].chunks.length; j++) assert.ok(report.chunks.includes(j), `chunk ${i}.${j} replaced unreported`)
    for (let j = message.chunks.length; j < after[i].chunks.length; j++) assert.ok(report.chunks.includes(j), `chunk ${i}.${j} added unreported`)
  })
}

/** The immutable view after a push: what changed is new, everything else is shared. */
function checkSharing(before, after, changes) {
  if (changes.reset) {
    // A message that stayed as it was is the same object, wherever it is now.
    assert.notEqual(after, before)
    const used = new Set()
    for (const message of after) {
      const j = before.findIndex((m) => m.id === message.id)
      if (j !== -1 && !used.has(j) && isDeepStrictEqual(plain(before[j]), plain(message))) {
        used.add(j)
        assert.equal(message, before[j], `message ${message.id} is shared`)
      } else assert.ok(!before.includes(message), `message ${message.id} is new`)
    }
    return
  }
  if (changes.added.length === 0 && changes.changed.length === 0) return assert.equal(after, before, 'nothing changed: the same array')
  assert.notEqual(after, before)
  const changed = new Map(changes.changed.map((c) => [c.index, c]))
  before.forEach((message, i) => {
    const report = changed.get(i)
    if (!report) return assert.equal(after[i], message, `message ${i} is shared`)
    assert.notEqual(after[i], message)
    message.chunks.forEach((chunk, j) => {
      if (report.chunks.includes(j) || j >= (report.replaced ?? Infinity)) assert.notEqual(after[i].chunks[j], chunk)
      else assert.equal(after[i].chunks[j], chunk, `chunk ${i}.${j} is shared`)
    })
  })
}

/**
 * Whether the UI message stream is written after the `k`th frame: not after every one, so
 * that some states are kept with changes not written yet.
 */
const writesAfter = (k) => k % 3 !== 1

/** Pushes `frames` one at a time into three conversations and checks every step. */
function pushAll(format, frames, splits) {
  const asBytes = new Conversation({ format })
  const asValues = new Conversation({ format, mode: 'immutable' })
  const stable = asBytes.messages
  const accepted = []
  // After each frame: the UI message stream chunks written then, and what an application
  // keeps to go on later (through JSON, as a reload).
  const written = [[]]
  const saved = [keep(asBytes)]
  for (const frame of frames) {
    const before = plain(asBytes.messages)
    const snapshot = asValues.messages
    const expected = reload(format, [...accepted, frame])
    let changes
    try {
      changes = asBytes.push(Buffer.from(ndjson([frame])))
    } catch (error) {
      assert.ok(!(error instanceof TypeError), error.message)
      assert.equal(expected, undefined, `refused live but read whole: ${error.message}`)
      assert.equal(typeof error.line, 'number')
      assert.deepEqual(plain(asBytes.messages), before, 'a refused frame changes nothing')
      assert.throws(() => asValues.push(frame))
      assert.equal(asValues.messages, snapshot, 'a refused value changes nothing')
      accepted.push(undefined)
      written.push(writesAfter(accepted.length) ? asBytes.toUIMessageChunks() : [])
      saved.push(keep(asBytes))
      continue
    }
    assert.notEqual(expected, undefined, 'read live but refused whole')
    accepted.push(frame)
    assert.equal(asBytes.messages, stable, 'the mutable view keeps its array')
    assert.deepEqual(plain(asBytes.messages), expected)
    checkReport(before, expected, changes)
    const held = plain(snapshot)
    // Read one message before `messages`: the array is made at the first read, from what is current.
    const valueChanges = asValues.push(frame)
    const last = asValues.at(-1)
    assert.equal(asValues.length, expected.length)
    assert.deepEqual(plain(asValues.messages), expected)
    assert.deepEqual(plain(snapshot), held, 'an array given before is never changed')
    assert.equal(last, asValues.messages.at(-1), 'at(-1) is messages.at(-1)')
    checkSharing(snapshot, asValues.messages, valueChanges)
    written.push(writesAfter(accepted.length) ? asBytes.toUIMessageChunks() : [])
    saved.push(keep(asBytes))
  }
  resumeEverywhere(format, accepted, saved, written)
  // The same frames as SSE, in random pieces.
  const split = new Conversation({ format })
  const bytes = Buffer.from(sse(accepted.filter((frame) => frame !== undefined)))
  let at = 0
  for (const cut of [...splits.map((s) => Math.floor(s * bytes.length)).sort((a, b) => a - b), bytes.length]) {
    split.push(bytes.subarray(at, cut))
    at = cut
  }
  split.end()
  assert.deepEqual(plain(split.messages), foldStream(bytes, { format }).messages)
}

/** A live conversation's messages and resume state, as JSON keeps them. */
const keep = (live) => JSON.parse(JSON.stringify({ messages: live.messages, resume: live.resume }))

/**
 * Going on from every frame boundary of a recording: from what a live conversation kept
 * there (an app restarted), and from `foldStream` of the recording up to there (a page
 * reloaded mid-turn), the rest pushed live gives what reading the whole recording gives:
 * its messages and its `skipped`. Going on from a live conversation's state, the UI
 * message stream goes on too: what was `written` up to the cut and what the conversation
 * gone on from there writes are what one conversation reading it all writes.
 */
function resumeEverywhere(format, frames, saved, written) {
  const read = foldStream(ndjson(frames), { format })
  const { messages: whole } = read
  const skipped = plain(read.skipped)
  const pushRest = (live, cut) => {
    const out = []
    for (let k = cut + 1; k <= frames.length; k++) {
      live.push(Buffer.from(ndjson([frames[k - 1]])))
      if (writesAfter(k)) out.push(...live.toUIMessageChunks())
    }
    live.end()
    return [...out, ...live.toUIMessageChunks()]
  }
  const wholeUi = pushRest(new Conversation({ format }), 0)
  assert.deepEqual(wholeUi.slice(0, written.flat().length), written.flat(), 'the recording read live writes what was written as it was pushed')
  for (let cut = 0; cut <= frames.length; cut++) {
    const prefix = frames.slice(0, cut)
    const loaded = JSON.parse(JSON.stringify(cut ? foldStream(ndjson(prefix), { format }) : { messages: [], resume: saved[0].resume }))
    for (const [from, { messages, resume }] of [['live', saved[cut]], ['foldStream', loaded]]) {
      assert.deepEqual(messages, plain(reload(format, prefix) ?? []), `${from} at ${cut}: messages`)
      const mode = cut % 2 ? 'immutable' : 'mutable'
      const live = new Conversation({ format, mode, messages, resume })
      const where = `going on from ${from} after frame ${cut} of ${frames.length}, ${mode}`
      assert.deepEqual(plain(live.messages), messages)
      if (from === 'live') {
        const ui = [...written.slice(0, cut + 1).flat(), ...pushRest(live, cut)]
        assert.deepEqual(ui, wholeUi, `${where}: the UI message stream`)
      } else {
        live.push(Buffer.from(ndjson(frames.slice(cut))))
        live.end()
      }
      assert.deepEqual(plain(live.messages), whole, where)
      assert.deepEqual(plain(live.skipped), skipped, `${where}: skipped`)
    }
  }
}

/**
 * A recording: a sample's frames, some dropped, some repeated, some swapped with the next
 * (a tool execution before the message announcing it), others from elsewhere mixed in.
 */
const recording = (format) =>
  fc.record({
    sample: fc.nat(CORPUS[format].length - 1),
    keep: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 80 }),
    other: fc.array(fc.nat(), { maxLength: 80 }),
    splits: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
  }).map(({ sample, keep, other, splits }) => {
    const all = CORPUS[format].flat()
    const frames = []
    let held
    CORPUS[format][sample].forEach((frame, i) => {
      const roll = keep[i] ?? 5
      if (roll === 7 && held === undefined) return void (held = frame)
      if (roll > 0) frames.push(frame)
      if (roll === 9) frames.push(frame)
      if (roll === 8) frames.push(all[(other[i] ?? 0) % all.length])
      if (held !== undefined) frames.push(held)
      held = undefined
    })
    if (held !== undefined) frames.push(held)
    return { frames, splits }
  })

for (const { name: format } of STREAMS) {
  test(`${format}: live after every frame equals the recording read whole`, () => {
    fc.assert(fc.property(recording(format), ({ frames, splits }) => pushAll(format, frames, splits)), { numRuns: RUNS, includeErrorInReport: true })
  })
}

test('events: random agent event streams, live after every event equals the recording read whole', () => {
  fc.assert(
    fc.property(fc.integer(), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }), (seed, splits) => {
      const rng = createRng(seed)
      // As a recording holds them: what JSON can hold of each event.
      const frames = randomEventStream(rng, { maxEvents: 30 }).flatMap((event) => {
        try {
          return [JSON.parse(JSON.stringify(event, (_, v) => (typeof v === 'bigint' ? String(v) : v)))]
        } catch {
          return []
        }
      })
      const turns = frames.flatMap((event, i) => (i % 7 === 3 ? [{ type: 'turn-start', turnId: `t${i}` }, event] : [event]))
      pushAll('events', turns, splits)
    }),
    { numRuns: RUNS * 2, includeErrorInReport: true },
  )
})
