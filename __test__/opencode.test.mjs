// OpenCode and Kilo CLI through the package: a stored session (export, GET
// /session/:id/message) told by content and read as OpenCode shows it, its live streams
// (run --format json, /event, /global/event, Kilo's /api/event) folded live into the same
// messages, lockstep() for check.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { Conversation, detectFormat, foldStream, loadHistorySync, lockstep, readHistory } from '../index.js'
import { root } from './cli-helpers.mjs'

const file = (path) => readFileSync(join(root, path))
const plain = (value) => JSON.parse(JSON.stringify(value))

describe('opencode', () => {
  test('the export and the server\'s reload are one session, one assistant message per step', () => {
    const reload = readHistory(file('examples/opencode-events.messages.json'))
    assert.equal(reload.format, 'opencode')
    assert.deepEqual(plain(readHistory(file('examples/opencode-session.json')).messages), plain(reload.messages))
    assert.deepEqual(reload.messages.map((m) => m.role), ['user', 'assistant', 'assistant'])
    const [thinking, text, batch] = reload.messages[1].chunks
    assert.equal(thinking.type, 'thinking')
    assert.equal(text.type, 'text')
    assert.equal(batch.calls[0].name, 'bash')
    assert.equal(batch.calls[0].result, 'lab-tool-output\nnotes.txt\n')
    assert.equal(batch.calls[0].isError, false)
    assert.equal(loadHistorySync(file('examples/opencode-session.json'), 'opencode').length, 3)
  })

  for (const [stream, reload] of [
    ['examples/opencode-events.sse', 'examples/opencode-events.messages.json'],
    ['examples/opencode-global.sse', 'examples/opencode-events.messages.json'],
    ['__test__/fixtures/opencode/kilo-7.7.7-event.sse', '__test__/fixtures/opencode/kilo-7.7.7-event.messages.json'],
    ['__test__/fixtures/opencode/kilo-7.7.7-api-event.sse', '__test__/fixtures/opencode/kilo-7.7.7-event.messages.json'],
  ]) {
    test(`${stream} folds live, in any pieces, into the reload of its session`, () => {
      const bytes = file(stream)
      const format = detectFormat(bytes).format
      const live = new Conversation({ format })
      for (let at = 0; at < bytes.length; at += 61) live.push(bytes.subarray(at, at + 61))
      live.end()
      const expected = plain(readHistory(file(reload)).messages)
      assert.deepEqual(plain(live.messages), expected)
      assert.deepEqual(plain(foldStream(bytes).messages), expected)
    })
  }

  test('lockstep sets aside what run --format json does not print, and says so', () => {
    const folded = foldStream(file('examples/opencode-run.jsonl'))
    assert.equal(folded.format, 'opencode-run')
    const history = readHistory(file('examples/opencode-run.session.json'))
    const before = JSON.stringify(history.messages)
    const { history: compared, notes } = lockstep('opencode-run', folded.messages, history.messages)
    assert.equal(JSON.stringify(history.messages), before, 'the caller\'s messages are left as they were')
    assert.deepEqual(plain(compared), plain(folded.messages))
    assert.deepEqual(notes.map((n) => n.split(':')[0]), ['1 × user messages'])
    assert.equal(lockstep('opencode-events', [], []), null)
  })

  test('a GET /session/:id/message answer is not taken for Solar Network thoughts', () => {
    const messages = file('examples/opencode-events.messages.json').toString('utf8')
    assert.deepEqual(detectFormat(messages), { format: 'opencode' })
    // Without the info OpenCode gives every message, it is no format this version reads.
    const bare = JSON.stringify(JSON.parse(messages).map(({ parts }) => ({ parts })))
    assert.match(detectFormat(bare).problem, /first element is in no format this version reads/)
  })
})
