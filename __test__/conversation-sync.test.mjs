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
