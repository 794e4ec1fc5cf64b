// OpenAI Codex CLI through the package's generic faces: rollouts and `codex exec --json`
// told by content and read, lockstep() for check, the command's check and scan.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

import { Conversation, detectFormat, foldStream, formats, lockstep, readHistory } from '../index.js'
import { root, run, scratch } from './cli-helpers.mjs'

const fixtures = join(root, '__test__', 'fixtures', 'codex')
const capture = (name) => {
  const dir = join(fixtures, name)
  const files = readdirSync(dir)
  const stream = files.includes('stream.jsonl') ? join(dir, 'stream.jsonl') : undefined
  const thread = stream && /"thread_id":"([^"]+)"/.exec(readFileSync(stream, 'utf8'))?.[1]
  const rollouts = files.filter((f) => f.startsWith('rollout-')).sort()
  const rollout = join(dir, rollouts.find((f) => thread && f.includes(thread)) ?? rollouts[0])
  return { dir, stream, rollout }
}
const tmp = scratch()

describe('codex', () => {
  test('rollouts of every generation and exec streams are told by content', () => {
    for (const name of readdirSync(fixtures)) {
      const { stream, rollout } = capture(name)
      assert.equal(detectFormat(readFileSync(rollout)).format, 'codex', name)
      if (stream && !name.startsWith('0.1.')) assert.equal(detectFormat(readFileSync(stream)).format, 'codex-exec', name)
    }
  })

  test('the table names where Codex keeps its rollouts', () => {
    const codex = formats().find((f) => f.name === 'codex')
    assert.deepEqual(codex.homes, [{ variable: 'CODEX_HOME', folder: '.codex', sessions: ['sessions', 'archived_sessions'] }])
    assert.deepEqual(formats().find((f) => f.name === 'codex-exec').homes, [])
  })

  test('a rollout reads as a user message and one assistant message per turn', () => {
    const { messages, skipped } = readHistory(readFileSync(join(root, 'examples', 'codex-rollout.jsonl')))
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant'])
    assert.equal(messages[1].id, '01a2c0de-0001-7000-8000-00000000c0de')
    assert.deepEqual(messages[1].chunks[0].metadata, { openai: { itemId: 'rs_demo_1', reasoningEncryptedContent: 'ZGVtby1lbmNyeXB0ZWQtcmVhc29uaW5n' } })
    assert.equal(skipped.count, 0)
  })

  test('exec --json folds live as it folds whole', () => {
    const bytes = readFileSync(join(root, 'examples', 'codex-exec.jsonl'))
    const live = new Conversation({ format: 'codex-exec' })
    for (let at = 0; at < bytes.length; at += 97) live.push(bytes.subarray(at, at + 97))
    live.end()
    assert.deepEqual(JSON.parse(JSON.stringify(live.messages)), JSON.parse(JSON.stringify(foldStream(bytes).messages)))
  })

  test('lockstep brings the rollout to what the stream carries and says what it set aside', () => {
    const { stream, rollout } = capture('0.171.0-failing-tool')
    const folded = foldStream(readFileSync(stream))
    const history = readHistory(readFileSync(rollout))
    const before = JSON.stringify(history.messages)
    const { history: compared, notes } = lockstep('codex-exec', folded.messages, history.messages)
    assert.equal(JSON.stringify(history.messages), before, 'the caller\'s messages are left as they were')
    const assistants = (ms) => ms.filter((m) => m.role === 'assistant').map((m) => m.chunks)
    assert.deepEqual(assistants(compared), assistants(folded.messages))
    assert.deepEqual(notes.map((n) => n.split(':')[0]), ['1 × call ids', '1 × calls Codex shows no item for'])
    assert.equal(lockstep('pi-events', [], []), null)
  })

  test('lockstep refuses bad arguments with a TypeError naming them', () => {
    assert.throws(() => lockstep(7, [], []), { name: 'TypeError', message: /format must be a format name, got number/ })
    assert.throws(() => lockstep('nope', [], []), { name: 'TypeError', message: /unknown format "nope"/ })
    assert.throws(() => lockstep('codex-exec', {}, []), { name: 'TypeError', message: /stream must be an array of ChatMessage, got object/ })
    assert.throws(() => lockstep('codex-exec', [], [{ id: 'a', role: 'robot', chunks: [] }]), { name: 'TypeError', message: /history\[0\]\.role must be/ })
    const cycle = []
    cycle.push(cycle)
    assert.throws(() => lockstep('codex-exec', cycle, []), TypeError)
  })

  test('check agrees with the rollout of the same run and says what it set aside', async () => {
    const { stream, rollout } = capture('0.171.0-compact')
    const { code, stdout } = await run(['check', stream, rollout])
    assert.equal(code, 0, stdout)
    assert.match(stdout, /set aside, as codex-exec and codex differ by design:\n {2}1 × call ids: exec --json numbers its items/)
    assert.match(stdout, /1 × compactions: exec --json streams nothing of a compaction/)
    assert.match(stdout, /agree: 1 turn and 3 chunks/)
  })

  test('check names a difference the tools do not explain', async () => {
    const { stream, rollout } = capture('0.171.0-tool')
    const changed = readFileSync(stream, 'utf8').replace('lab-tool-output\\nnotes.txt', 'lab-tool-output\\nother.txt')
    const { code, stdout } = await run(['check', tmp.file('changed.jsonl', changed), rollout])
    assert.equal(code, 1, stdout)
    assert.match(stdout, /first difference at messages\[1\]\.chunks\[2\]\.calls\[0\]\.result/)
  })

  test('scan with no folder scans the tools\' own session folders that exist', async () => {
    const home = tmp.path('home')
    const codexHome = tmp.path('codex-home')
    mkdirSync(join(codexHome, 'sessions', '2026', '11', '27'), { recursive: true })
    const { rollout } = capture('0.171.0-tool')
    cpSync(rollout, join(codexHome, 'sessions', '2026', '11', '27', 'rollout-a.jsonl'))
    mkdirSync(join(home, '.claude', 'projects'), { recursive: true })
    const env = { HOME: home, CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: '', QWEN_HOME: '', PI_CODING_AGENT_DIR: '' }
    const { code, stdout, stderr } = await run(['scan', '--json'], { env })
    assert.equal(code, 0, stderr)
    assert.equal(stderr, `scanning ${join(home, '.claude', 'projects')}, ${join(codexHome, 'sessions')}\n`)
    const report = JSON.parse(stdout)
    assert.equal(report.files.length, 1)
    assert.equal(report.files[0].format, 'codex')
    const none = await run(['scan'], { env: { ...env, HOME: tmp.path('empty-home'), CODEX_HOME: '' } })
    assert.equal(none.code, 0)
    assert.equal(none.stderr, 'no session folder of a tool this version reads is on this machine\n')
  })
})

describe('codex app-server: the traffic as a backend holds it', () => {
  const traffic = readFileSync(join(root, 'examples', 'codex-app-server.jsonl'), 'utf8')
  const lines = traffic.split('\n').filter(Boolean)
  const plain = (value) => JSON.parse(JSON.stringify(value))

  test('parsed messages pushed one by one fold as the bytes do', () => {
    const whole = foldStream(traffic, { format: 'codex-app-server' })
    const live = new Conversation({ format: 'codex-app-server' })
    for (const line of lines) live.push(JSON.parse(line))
    live.end()
    assert.deepEqual(plain(live.messages), plain(whole.messages))
    assert.equal(whole.messages.length, 4)
    const call = whole.messages[1].chunks.find((c) => c.type === 'tool-batch').calls[0]
    assert.deepEqual(call.meta, { approval: { method: 'item/commandExecution/requestApproval', reason: 'not trusted', decision: 'accept' } })
  })

  test('a thread/read answer reads as the history the live fold built, and check names the approval it leaves out', () => {
    const reread = readFileSync(join(root, '__test__', 'fixtures', 'codex-app-server.thread-read.jsonl'))
    assert.equal(detectFormat(reread).format, 'codex-app-server')
    const history = readHistory(reread, { format: 'codex-app-server' })
    const live = foldStream(traffic, { format: 'codex-app-server' })
    const aside = lockstep('codex-app-server', live.messages, history.messages)
    assert.deepEqual(plain(aside.history), plain(live.messages))
    assert.deepEqual(aside.notes, ["1 × approvals: the rollout and a re-read keep neither the server's request nor the client's answer"])
  })

  test('read as ACP, the traffic is counted by method, not dropped in silence', () => {
    const read = foldStream(traffic, { format: 'acp' })
    assert.equal(read.messages.length, 0)
    assert.ok(read.skipped.count > 20, JSON.stringify(read.skipped))
    assert.ok(read.skipped.kinds['JSON-RPC method "item/agentMessage/delta" is not ACP\'s'] >= 2, JSON.stringify(read.skipped.kinds))
  })
})
