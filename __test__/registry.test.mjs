// The one table of formats: detection from the first lines, readHistory / foldStream
// through it, unknown lines counted or refused, and the command using nothing else.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'

import { detectFormat, foldStream, formats, loadHistorySync, readHistory } from '../index.js'
import { run, scratch } from './cli-helpers.mjs'

const tmp = scratch()

const file = (path) => readFileSync(new URL(`../${path}`, import.meta.url))

test('every format is one row, and the typings name every row', () => {
  const table = formats()
  const names = table.map((f) => f.name)
  assert.equal(new Set(names).size, names.length)
  for (const format of table) assert.ok(format.history || format.stream, `${format.name} reads something`)
  const typings = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
  const union = /export type FormatName = (.*)/.exec(typings)[1]
  assert.deepEqual(new Set(union.match(/'[^']+'/g).map((n) => n.slice(1, -1))), new Set(names))
})

const detected = {
  'examples/acp-session.ndjson': 'acp',
  'examples/acp-v1-load.ndjson': 'acp',
  'examples/claude-code-session.jsonl': 'claude',
  'examples/claude-code-stream.ndjson': 'claude-stream',
  'examples/claude-code-stream.partial.ndjson': 'claude-stream',
  'examples/claude-code-stream.session.jsonl': 'claude',
  'examples/copilot-session.events.jsonl': 'copilot',
  'examples/copilot-session.stream.ndjson': 'copilot',
  'examples/qwen-code-chat.jsonl': 'qwen',
  'examples/agent-session.sse': 'events',
  'examples/chatviewer-session.jsonl': 'chatviewer',
  'examples/chatviewer.json': 'chatviewer',
  'examples/demo-stream.ndjson': 'events',
  'examples/openclaw-gateway.ndjson': 'pi-stream',
  'examples/openclaw-session.jsonl': 'pi',
  'examples/pi-events.ndjson': 'pi-events',
  'examples/pi-events.session.jsonl': 'pi',
  'examples/pi-session.jsonl': 'pi',
  'examples/pi-session.stream.ndjson': 'pi-stream',
  'examples/sn-history.json': 'sn',
  'examples/sn-thinking.sse': 'sn-stream',
  'examples/ai-sdk-stream.sse': 'ai-sdk',
  'examples/ag-ui-stream.sse': 'ag-ui',
  '__test__/fixtures/pi-tree.jsonl': 'pi',
  '__test__/fixtures/pi-v1.jsonl': 'pi',
  '__test__/fixtures/pi-v2.jsonl': 'pi',
  '__test__/fixtures/pi-drift.stream.ndjson': 'pi-stream',
  '__test__/fixtures/claude-2.1-state-first.jsonl': 'claude',
  '__test__/fixtures/acp-client-traffic.jsonl': 'acp',
  '__test__/fixtures/acp-agent-stdout.ndjson': 'acp',
  '__test__/fixtures/acp-export.json': 'acp',
  'examples/codex-exec.jsonl': 'codex-exec',
  'examples/codex-rollout.jsonl': 'codex',
  'examples/codex-app-server.jsonl': 'codex-app-server',
  '__test__/fixtures/codex-app-server.thread-read.jsonl': 'codex-app-server',
  '__test__/fixtures/codex/0.171.0-tool/stream.jsonl': 'codex-exec',
  '__test__/fixtures/codex/0.20.0-tool/stream.jsonl': 'codex-exec',
  'examples/opencode-session.json': 'opencode',
  'examples/opencode-events.messages.json': 'opencode',
  'examples/opencode-run.session.json': 'opencode',
  'examples/opencode-run.jsonl': 'opencode-run',
  'examples/opencode-events.sse': 'opencode-events',
  'examples/opencode-global.sse': 'opencode-global',
  '__test__/fixtures/opencode/kilo-7.7.7-event.sse': 'opencode-events',
  '__test__/fixtures/opencode/kilo-7.7.7-api-event.sse': 'opencode-events',
  '__test__/fixtures/opencode/kilo-7.7.7-event.messages.json': 'opencode',
}

test('detectFormat tells every example and fixture from its first lines', () => {
  for (const [path, format] of Object.entries(detected)) {
    assert.deepEqual(detectFormat(file(path)), { format }, path)
    assert.deepEqual(detectFormat(file(path).toString('utf8')), { format }, `${path} as text`)
  }
  // Every sample file (the example page's directory is an app, not a sample).
  const listed = [...readdirSync(new URL('../examples', import.meta.url), { withFileTypes: true })]
    .filter((entry) => entry.isFile())
    .map((entry) => `examples/${entry.name}`)
  for (const path of listed) assert.ok(path in detected, `${path} has an expected format`)
})

test('detection looks past a leading header, responses and a byte order mark', () => {
  const events = file('examples/pi-events.ndjson').toString('utf8').split('\n')
  assert.deepEqual(detectFormat(events.slice(0, 3).join('\n')), { format: 'pi-events' }, 'a session header, then agent events')
  assert.deepEqual(detectFormat(events.slice(0, 1).join('\n')), { format: 'pi' }, 'a header alone is a session file')
  assert.deepEqual(detectFormat(`\ufeff${file('examples/pi-session.jsonl')}`), { format: 'pi' })
  assert.deepEqual(detectFormat('{"type":"res","id":"1","ok":true}\n{"type":"event","event":"chat","payload":{"state":"delta"}}\n'), { format: 'pi-stream' })
})

test('detection decides by the first line that tells a format, looking past lines of kinds it does not know', () => {
  const claude = file('__test__/fixtures/claude-2.1-state-first.jsonl').toString('utf8').split('\n')
  assert.deepEqual(detectFormat(claude.slice(0, 5).join('\n')), { format: 'claude' }, 'session state first, then the first prompt')
  // A line type the next version adds, with Claude Code's envelope, tells Claude Code.
  const envelope = { parentUuid: null, isSidechain: false, userType: 'external', sessionId: 's', uuid: 'u1', type: 'checkpoint-v9' }
  assert.deepEqual(detectFormat(`${claude.slice(0, 4).join('\n')}\n${JSON.stringify(envelope)}\n`), { format: 'claude' })
  // Claude Code 2.0 lines without isSidechain / userType: the tree and an API message tell it.
  const bare = { parentUuid: null, sessionId: 's', version: '2.0.50', type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'u1' }
  assert.deepEqual(detectFormat(`${JSON.stringify(bare)}\n`), { format: 'claude' })
  assert.deepEqual(detectFormat(`${JSON.stringify({ ...bare, message: { role: 'user', parts: [{ text: 'hi' }] } })}\n`), { format: 'qwen' })
  // Lines that are not JSON (a log line of the agent's) are looked past too.
  const logged = `agent v3 listening on stdio\n${file('__test__/fixtures/acp-agent-stdout.ndjson')}`
  assert.deepEqual(detectFormat(logged), { format: 'acp' })
  // Two records written back to back on one line (the line end of an append lost) tell
  // the format as the reader reads them, each.
  const glued = `${JSON.stringify({ ...bare, message: { role: 'user', parts: [{ text: 'a {"b": 1} c' }] } })}${JSON.stringify({ ...bare, uuid: 'u2', parentUuid: 'u1', type: 'assistant', message: { role: 'model', parts: [{ text: 'ok' }] } })}\n`
  assert.deepEqual(detectFormat(glued), { format: 'qwen' })
  assert.equal(readHistory(glued).messages.length, 2)
  // Only within a bounded window: 64 lines that tell nothing, then one that would.
  const many = `${'{"type":"heartbeat"}\n'.repeat(64)}{"type":"text-delta","delta":"a"}\n`
  assert.match(detectFormat(many).problem, /^cannot tell the format from its first 64 lines/)
  assert.deepEqual(detectFormat(`${'{"type":"heartbeat"}\n'.repeat(63)}{"type":"text-delta","delta":"a"}\n`), { format: 'events' })
  // A UI message stream whose first chunk is its error (createUIMessageStream's execute threw).
  assert.deepEqual(detectFormat('data: {"type":"error","errorText":"boom"}\n\ndata: [DONE]\n\n'), { format: 'ai-sdk' })
  assert.deepEqual(detectFormat('{"type":"error","error":"boom"}\n'), { format: 'events' })
})

test('what cannot be told is said, with the line', () => {
  assert.deepEqual(detectFormat('\n\n'), { problem: 'the file is empty' })
  assert.deepEqual(detectFormat('\n# notes\n'), { problem: 'cannot tell the format: the first line is not JSON (# notes); pass --format', line: 2 })
  assert.deepEqual(detectFormat('{"type":"heartbeat"}\n'), { problem: 'cannot tell the format from this line ({"type":"heartbeat"}); closest: events (objects tagged by "type", none of an agent event type); pass --format', line: 1 })
  assert.deepEqual(detectFormat('{"ok":1}\n\n{"ok":2}\n'), { problem: 'cannot tell the format from its first 2 lines (the first: {"ok":1}); pass --format', line: 1 })
  // The formats that came closest, and why.
  const rpc = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n'
  assert.deepEqual(detectFormat(rpc), { problem: 'cannot tell the format from its first 2 lines (the first: {"jsonrpc":"2.0","id":1,"method":"tools/list"}); closest: acp (JSON-RPC messages, none of them ACP\'s); pass --format', line: 1 })
  const state = '\n{"type":"queue-operation","operation":"enqueue","sessionId":"s-1"}\n{"type":"session_marker","id":"e1","parentId":null}\n'
  assert.deepEqual(detectFormat(state), { problem: 'cannot tell the format from its first 2 lines (the first: {"type":"queue-operation","operation":"enqueue","sessionId"…); closest: claude (lines with a sessionId as Claude Code writes, none of a type this version knows), events (objects tagged by "type", none of an agent event type), pi (entries with an id and a parentId as pi writes, none of a type this version knows); pass --format', line: 2 })
  assert.deepEqual(detectFormat('[]'), { problem: 'an empty JSON array could be Sn thoughts or a ChatViewer transcript; pass --format', line: 1 })
  assert.throws(() => detectFormat(42), { name: 'TypeError', message: 'detectFormat: source must be a string, a Buffer or a Uint8Array, got number' })
})

test('readHistory detects, reads and agrees with loadHistorySync', () => {
  for (const [path, format] of Object.entries(detected)) {
    if (!formats().find((f) => f.name === format).history) continue
    const read = readHistory(file(path))
    assert.equal(read.format, format)
    assert.deepEqual(read.messages, loadHistorySync(file(path), format), path)
  }
  assert.throws(() => readHistory(file('examples/pi-events.ndjson')), (e) => /a pi-events file is a stream, not a history/.test(e.message))
  assert.throws(() => readHistory('x', { format: 'yaml' }), { name: 'TypeError', message: /options\.format must be one of 'acp', /})
  assert.throws(() => readHistory('x', { strict: 'yes' }), { name: 'TypeError', message: 'readHistory: options.strict must be a boolean, got string' })
})

test('foldStream names the lines that built each message and chunk', () => {
  const folded = foldStream(file('examples/pi-session.stream.ndjson'))
  assert.equal(folded.messages.length, folded.origins.length)
  assert.deepEqual(folded.origins[0], { lines: [1, 21], chunks: [[1, 15], [16, 19], [20, 21]] })
  assert.throws(() => foldStream(file('examples/pi-session.jsonl')), (e) => /a pi file is a history, not a stream/.test(e.message))
  assert.throws(() => foldStream('{"type":"delta","text":"a"}\nnope\n', { strict: true }), (e) => e.line === 2 && /invalid JSON/.test(e.message))
  // Without strict, a line that is no JSON is skipped and counted.
  assert.deepEqual(foldStream('{"type":"delta","text":"a"}\nnope\n').skipped.kinds, { 'a line that is not JSON': 1 })
})

test('unknown stream values are skipped and counted, or refused when strict', () => {
  const stream = '{"type":"delta","text":"a"}\n{"type":"presence","who":"x"}\n{"type":"delta","text":"b"}\n'
  const folded = foldStream(stream)
  assert.deepEqual(folded.messages[0].chunks, [{ type: 'text', text: 'ab' }])
  assert.deepEqual(folded.skipped, { count: 1, examples: ['line 2: unknown frame type "presence"'], kinds: { 'unknown frame type "presence"': 1 } })
  assert.throws(() => foldStream(stream, { strict: true }), (e) => e.line === 2 && /strict/.test(e.message))
})

/** What readHistory leaves out of a history example (undefined when nothing, or a stream). */
function table0(path) {
  const format = formats().find((f) => f.name === detected[path])
  if (!format.history) return undefined
  const { leftOut } = readHistory(file(path))
  return leftOut.count ? leftOut : undefined
}

test('the command reads any format without --format, and reports or refuses unknown lines', async () => {
  for (const [path, format] of Object.entries(detected)) {
    const { code, stdout, stderr } = await run(['replay', path, '--json'])
    assert.equal(code, 0, `${path}: ${stderr}`)
    // The ACP example holds an update of a kind this version does not know.
    const note = `note: ${path}: 1 line skipped (unknown to this version or unreadable; --strict refuses them): line 23: a sessionUpdate this version does not know\n`
    // What the resumed view leaves out is said in a note of its own, with its reasons.
    const left = table0(path)
    const leftNote = left ? `note: ${path}: ${left.count} entries left out (${Object.entries(left.reasons).map(([r, n]) => `${n} ${r}`).join(', ')}; --all reads every entry): ${left.examples.join('; ')}${left.count > left.examples.length ? '; …' : ''}\n` : ''
    // Claude Code 2.1's session-state lines are read past (the note, if any, counts them).
    if (path.includes('claude-2.1')) assert.match(stderr, /^(note: [^\n]*\n)*$/, path)
    else if (path.includes('acp-agent-stdout')) assert.equal(stderr, `note: ${path}: 1 line skipped (unknown to this version or unreadable; --strict refuses them): line 2: neither an ACP notification nor JSON-RPC\n`)
    else assert.equal(stderr, (path === 'examples/acp-v1-load.ndjson' ? note : '') + leftNote, path)
    const table = formats().find((f) => f.name === format)
    const expected = table.history ? readHistory(file(path)).messages : foldStream(file(path)).messages
    assert.deepEqual(JSON.parse(stdout), expected, path)
  }
  const stream = '{"type":"delta","text":"a"}\n{"type":"presence","who":"x"}\n'
  const path = tmp.file('presence.ndjson', stream)
  const lenient = await run(['replay', path, '--json'])
  assert.equal(lenient.code, 0)
  assert.equal(lenient.stderr, `note: ${path}: 1 line skipped (unknown to this version or unreadable; --strict refuses them): line 2: unknown frame type "presence"\n`)
  const strict = await run(['replay', path, '--strict'])
  assert.equal(strict.code, 2)
  assert.equal(strict.stderr, `${path}:2: unknown frame type "presence" (strict: unknown lines are refused)\n`)
  const leaf = await run(['replay', '__test__/fixtures/pi-tree.jsonl', '--json', '--leaf', 'a000000c'])
  assert.equal(JSON.parse(leaf.stdout).at(-1).id, 'a000000c')
})

test('loadHistory takes the same options: a leaf to read, strict', async () => {
  const path = new URL('../__test__/fixtures/pi-tree.jsonl', import.meta.url).pathname
  const { loadHistory, pi } = await import('../index.js')
  const bytes = file('__test__/fixtures/pi-tree.jsonl')
  assert.deepEqual(await loadHistory(path, 'pi', { view: 'transcript' }), pi.toMessages(bytes), 'a file read twice (the path first) gives what the bytes give')
  assert.deepEqual(loadHistorySync(path, 'pi', { leaf: 'a000000c', view: 'transcript' }), pi.toMessages(bytes, { leaf: 'a000000c' }))
  assert.deepEqual(await loadHistory(bytes, 'pi', { leaf: 'a000000c', view: 'transcript' }), pi.toMessages(bytes, { leaf: 'a000000c' }))
  const unknown = '{"role":"user","content":"a"}\n{"role":"robot","content":"b"}\n'
  assert.equal(loadHistorySync(Buffer.from(unknown), 'pi').length, 1)
  assert.throws(() => loadHistorySync(Buffer.from(unknown), 'pi', { strict: true }), (e) => e.line === 2 && /unknown message role "robot"/.test(e.message))
  assert.throws(() => loadHistorySync(path, 'pi', { leaf: 7 }), { name: 'TypeError', message: 'loadHistorySync: options.leaf must be a string, got number' })
})
