// loadHistory / loadHistorySync: every format from a path or bytes, sync and async alike,
// in lockstep with the stream readers, large histories built a slice at a time while the
// event loop keeps turning, and bad input.
import test from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'

import { acp, appendEventToChunks, loadHistory, loadHistorySync, pi, sn } from '../index.js'
import { readExample, readNdjson } from './fixtures.mjs'

const path = (name) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'agent-chunks-history-'))
const write = (name, text) => {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}
/** As JSON has it: `undefined` members left out. */
const plain = (value) => JSON.parse(JSON.stringify(value))

const examples = [
  ['demo-stream.ndjson', 'events'],
  ['sn-thinking.sse', 'events'],
  ['pi-session.jsonl', 'pi'],
  ['sn-history.json', 'sn'],
  ['acp-session.ndjson', 'acp'],
  ['chatviewer.json', 'chatviewer'],
]

test('every format loads the same from a path or bytes, sync or async', async () => {
  for (const [name, format] of examples) {
    const expected = loadHistorySync(path(name), format)
    assert.ok(Array.isArray(expected), name)
    assert.deepEqual(await loadHistory(path(name), format), expected, `${name} async`)
    assert.deepEqual(await loadHistory(readExample(name), format), expected, `${name} Buffer`)
    assert.deepEqual(loadHistorySync(new Uint8Array(readExample(name)), format), expected, `${name} Uint8Array`)
    for (const message of expected) {
      assert.deepEqual(Object.keys(message), ['id', 'role', 'chunks'])
    }
  }
})

test('pi and sn histories are what their readers give', () => {
  assert.deepEqual(loadHistorySync(path('pi-session.jsonl'), 'pi'), pi.toMessages(readExample('pi-session.jsonl')))
  assert.deepEqual(loadHistorySync(path('sn-history.json'), 'sn'), sn.toMessages(readExample('sn-history.json')))
  // Sn thoughts one per line read as the array does.
  const lines = JSON.parse(readExample('sn-history.json')).map((t) => JSON.stringify(t)).join('\n')
  assert.deepEqual(loadHistorySync(Buffer.from(lines), 'sn'), sn.toMessages(readExample('sn-history.json')))
})

test('events: each turn of the recorded stream is the message the drop-in builds from it', () => {
  const events = readNdjson('demo-stream.ndjson')
  const turns = []
  for (const event of events) {
    if (event.type === 'turn-start') turns.push({ id: event.turnId, chunks: [] })
    else appendEventToChunks(turns.at(-1).chunks, event)
  }
  const history = loadHistorySync(path('demo-stream.ndjson'), 'events')
  assert.deepEqual(history, plain(turns.map(({ id, chunks }) => ({ id, role: 'assistant', chunks }))))
})

test('acp: a file loads to what acp.toMessages folds its notifications to, live or whole', () => {
  for (const name of ['acp-session.ndjson', 'acp-v1-load.ndjson']) {
    const updates = readNdjson(name)
    const history = loadHistorySync(path(name), 'acp')
    assert.deepEqual(acp.toMessages(updates), history)
    assert.deepEqual(acp.toMessages(readExample(name)), history)
    // Folding as they arrive: each prefix's messages are the start of the final ones,
    // all but the last of them already final.
    for (let n = 1; n <= updates.length; n++) {
      const sofar = acp.toMessages(updates.slice(0, n))
      assert.deepEqual(sofar.slice(0, -1), history.slice(0, Math.max(0, sofar.length - 1)), `${name}: after ${n} updates`)
      assert.equal(sofar.at(-1)?.id, history[sofar.length - 1]?.id)
    }
  }
})

test('chatviewer: lines in time order, each line a message of its own', () => {
  const history = loadHistorySync(path('chatviewer.json'), 'chatviewer')
  const lines = JSON.parse(readExample('chatviewer.json'))
  const byTime = [...lines].sort((a, b) => new Date(a.timestamp) - new Date(b.timestamp))
  assert.deepEqual(history.map((m) => m.id), byTime.map((line) => line.uuid))
  assert.deepEqual(history.map((m) => m.role), byTime.map((line) => (line.type === 'user' ? 'user' : 'assistant')))
})

/** A Pi session of `turns` turns, one of them long: text, and a tool batch of many calls. */
function bigSession(turns) {
  const lines = []
  for (let t = 0; t < turns; t++) {
    lines.push(JSON.stringify({ role: 'user', content: [{ type: 'text', text: `question ${t} 🧪` }] }))
    const calls = t === 3 ? 3000 : 3
    lines.push(JSON.stringify({
      role: 'assistant',
      provider: 'anthropic',
      content: [
        { type: 'thinking', thinking: `thinking about ${t} \ud83d`, thinkingSignature: `sig${t}` },
        { type: 'text', text: 'x'.repeat(t === 5 ? 200_000 : 50) },
        ...Array.from({ length: calls }, (_, i) => ({ type: 'toolCall', id: `c${t}-${i}`, name: 'read', arguments: { path: `f${i}`, ['__proto__']: { i } } })),
      ],
    }))
    for (let i = 0; i < calls; i++) {
      lines.push(JSON.stringify({ role: 'toolResult', toolCallId: `c${t}-${i}`, content: [{ type: 'text', text: `result ${i} é` }], isError: i % 5 === 0 }))
    }
  }
  return lines.join('\n')
}

test('a large history is built a slice at a time: the same messages, and the event loop turns meanwhile', async () => {
  // Large enough that building it takes many 3 ms stretches even on a fast, idle machine
  // (with 400 turns a quick load yielded only four times).
  const file = write('big.jsonl', bigSession(1200))
  const expected = loadHistorySync(file, 'pi')
  assert.equal(expected.length, 2400)
  let turnsOfTheLoop = 0
  let stop = false
  const spin = () => {
    if (stop) return
    turnsOfTheLoop++
    setImmediate(spin)
  }
  setImmediate(spin)
  const loaded = await loadHistory(file, 'pi')
  stop = true
  assert.deepEqual(loaded, expected)
  assert.ok(turnsOfTheLoop > 5, `the event loop turned ${turnsOfTheLoop} times during the load`)
  // Own properties, as JSON.parse makes them; no prototype was set.
  const call = loaded[7].chunks[2].calls[10]
  assert.ok(Object.hasOwn(call.arguments, '__proto__'))
  assert.equal(Object.getPrototypeOf(call.arguments), Object.prototype)
  assert.equal(loaded[7].chunks[2].calls.length, 3000)
  assert.equal(loaded[1].chunks[0].text, 'thinking about 0 \ud83d')
})

test('a recorded stream loads its messages as they settle; one a later value changes is replaced, not added', async () => {
  // 600 AI SDK responses (several blocks), then a last one whose output lands on a call of
  // response 2, which was handed on when its own output came: the async load builds the
  // messages while the thread still reads, and replaces response 2 when it changes.
  const one = readExample('ai-sdk-stream.sse').toString('utf8')
  let text = ''
  for (let copy = 0; copy < 600; copy++) {
    text += one.replaceAll('msg_7Qx2', `msg_${copy}`).replaceAll('toolu_0', `toolu_${copy}_`)
  }
  text += 'data: {"type":"start","messageId":"late"}\n\n'
  text += 'data: {"type":"tool-output-available","toolCallId":"toolu_2_1Run","output":"again"}\n\n'
  const expected = loadHistorySync(Buffer.from(text), 'ai-sdk')
  assert.equal(expected.length, 601)
  assert.equal(expected[2].chunks.find((c) => c.type === 'tool-batch').calls[0].result, 'again')
  assert.deepEqual(await loadHistory(Buffer.from(text), 'ai-sdk'), expected)
  assert.deepEqual(await loadHistory(write('late-output.sse', text), 'ai-sdk'), expected)

  // An events recording whose turns all settle, and one whose first call waits to the end.
  const turn = (t, result) =>
    `{"type":"turn-start","turnId":"t${t}"}\n{"type":"text-delta","delta":"${'x'.repeat(900)} ${t}"}\n` +
    `{"type":"tool-call","toolCall":{"id":"c${t}","name":"read","arguments":{"n":${t}}}}\n` +
    (result ? `{"type":"tool-result","toolResult":{"toolCallId":"c${t}","result":"r${t}","isError":false}}\n` : '')
  for (const waiting of [false, true]) {
    let events = ''
    for (let t = 0; t < 2000; t++) events += turn(t, !(waiting && t === 0))
    const whole = loadHistorySync(Buffer.from(events), 'events')
    assert.equal(whole.length, 2000)
    assert.deepEqual(await loadHistory(Buffer.from(events), 'events'), whole)
  }
})

test('loads overlap: several at once on one thread, each its own result', async () => {
  const names = examples.concat(examples)
  const results = await Promise.all(names.map(([name, format]) => loadHistory(path(name), format)))
  results.forEach((result, i) => assert.deepEqual(result, loadHistorySync(path(names[i][0]), names[i][1])))
})

test('a file that cannot be read rejects with its code; bad arguments throw a TypeError', async () => {
  await assert.rejects(loadHistory(join(dir, 'missing.jsonl'), 'pi'), (e) => e.code === 'ENOENT' && /missing\.jsonl/.test(e.message))
  assert.throws(() => loadHistorySync(dir, 'pi'), (e) => e.code === 'EISDIR')
  assert.throws(() => loadHistory(path('pi-session.jsonl'), 'gemini'), {
    name: 'TypeError',
    message: "loadHistory: format must be one of 'acp', 'claude', 'claude-stream', 'copilot', 'qwen', 'codex', 'opencode', 'chatviewer', 'pi', 'sn', 'ag-ui', 'ai-sdk', 'events', got 'gemini'",
  })
  assert.throws(() => loadHistorySync(path('pi-session.jsonl')), { name: 'TypeError', message: /got undefined/ })
  assert.throws(() => loadHistorySync(42, 'pi'), {
    name: 'TypeError',
    message: 'loadHistorySync: source must be a file path (a string), a Buffer or a Uint8Array, got number',
  })
})

test('an invalid history is an Error with its line (and offset where known)', async () => {
  const cases = [
    ['pi', '{"role":"user","content":"a"}\n{"role":"assistant","content":[{"type":"text"}]}\n', 2, /content\[0\]\.text must be a string/],
    ['pi', '{"role":"user","content":"a"}\n{"role":"us', 2, /truncated/],
    ['events', '{"type":"text-delta","delta":"a"}\n{"type":"tool-call","toolCall":{"id":1}}\n', 2, /toolCall\.id/],
    ['acp', '{"update":{"sessionUpdate":"agent_message_chunk"}}\n', 1, /notification\.update\.content must be an object/],
    ['chatviewer', '{"uuid":"a","timestamp":0,"type":"user"}\n[]\n', 2, /uuid must be a string, got undefined/],
    ['sn', '[{"id":"a","parts":[],"role":1},\n{"id":"b","parts":[],"role":9}]', undefined, /\[1\]/],
  ]
  for (const [format, text, line, message] of cases) {
    const bytes = Buffer.from(text)
    const check = (e) => {
      assert.ok(e instanceof Error && !(e instanceof TypeError), `${format}: ${e}`)
      assert.match(e.message, message)
      assert.match(e.message, new RegExp(`^loadHistory(Sync)?: ${format} history`))
      assert.equal(e.line, line, `${format}: ${e.message}`)
      return true
    }
    // Strict: a line that cannot be read is refused (without it, skipped and counted).
    assert.throws(() => loadHistorySync(bytes, format, { strict: true }), check)
    await assert.rejects(loadHistory(bytes, format, { strict: true }), check)
  }
  const utf8 = Buffer.concat([Buffer.from('{"role":"user","content":"a"}\n{"role":"u'), Buffer.from([0xff]), Buffer.from('ser"}\n')])
  await assert.rejects(loadHistory(utf8, 'pi', { strict: true }), (e) => e.line === 2 && e.offset === 40 && /invalid UTF-8/.test(e.message))
  // The caller's bytes are left as they were.
  assert.equal(utf8[40], 0xff)
})

test('loadHistory works in worker threads, and a worker can end in the middle of a load', async () => {
  const file = write('worker.jsonl', bigSession(200))
  const expected = loadHistorySync(file, 'pi').length
  const script = `
    const { parentPort, workerData } = require('node:worker_threads')
    const { loadHistory } = require(workerData.addon)
    loadHistory(workerData.file, 'pi').then((messages) => parentPort.postMessage(messages.length))
  `
  const addon = fileURLToPath(new URL('../index.js', import.meta.url))
  const counts = await Promise.all(
    Array.from({ length: 4 }, () => {
      const worker = new Worker(script, { eval: true, workerData: { addon, file } })
      return new Promise((resolve, reject) => {
        worker.once('message', (n) => worker.terminate().then(() => resolve(n)))
        worker.once('error', reject)
      })
    }),
  )
  assert.deepEqual(counts, [expected, expected, expected, expected])
  for (let round = 0; round < 6; round++) {
    const worker = new Worker(script, { eval: true, workerData: { addon, file } })
    await new Promise((resolve) => worker.once('online', resolve))
    await new Promise((resolve) => setTimeout(resolve, round * 3))
    await worker.terminate()
  }
  assert.equal((await loadHistory(file, 'pi')).length, expected)
})

test('loadHistory reads a signal and the format options from one options object', async () => {
  const file = path('acp-v1-load.ndjson')
  const { signal } = new AbortController()
  assert.equal((await loadHistory(file, 'acp', { signal })).length, 6)
  await assert.rejects(loadHistory(file, 'acp', { signal, strict: true }), (e) => e.line === 23 && /strict: unknown lines are refused/.test(e.message))
  assert.deepEqual(await loadHistory(file, 'acp', { signal, strict: false }), loadHistorySync(file, 'acp'))
  assert.throws(() => loadHistory(file, 'acp', { signal, strict: 'yes' }), {
    name: 'TypeError',
    message: 'loadHistory: options.strict must be a boolean, got string',
  })
})
