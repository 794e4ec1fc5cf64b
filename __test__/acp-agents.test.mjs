// ACP as the agents on the registry send it (lines reduced from the lab's captures of Qwen
// Code 0.24.4 `--acp`, Gemini CLI 0.61.0 `--acp`, codex-acp 0.16.0, OpenCode 1.18.33
// `opencode acp` and Kilo 7.7.7 `kilo acp`, driven by a client on @agentclientprotocol/sdk):
// a call's fields sent only in a permission request, a failed prompt's cause in
// `error.data`, empty text chunks, a step's thoughts and text under two ids, a tool_call
// after its permission request — each read the same live (a Conversation fed the traffic,
// objects one by one) and as bytes; and the lab's ACP captures, checked.
import test from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { Conversation, foldStream } from '../index.js'
import { foldObjects } from '../lab/acp-check.mjs'
import { checkCapture, describeResult } from '../lab/check.mjs'
import { root, scratch } from './cli-helpers.mjs'

const S = 'ses-lab'
const update = (u) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: S, update: u } })
const prompt = (id, text) => ({ jsonrpc: '2.0', id, method: 'session/prompt', params: { sessionId: S, prompt: [{ type: 'text', text }] } })
const text = (sessionUpdate, t, extra = {}) => update({ sessionUpdate, content: { type: 'text', text: t }, ...extra })
// A traffic log as the lab's client writes it.
const log = (messages, direction = 'receive') => messages.map((message) => JSON.stringify({ direction, message }) + '\n').join('')

/** The messages of a log folded live, a line at a time as objects, and read whole. */
function readings(messages) {
  const live = new Conversation({ format: 'acp' })
  for (const m of messages) live.push(m)
  live.end()
  const whole = foldStream(log(messages), { format: 'acp' }).messages
  assert.deepEqual(JSON.parse(JSON.stringify(live.messages)), JSON.parse(JSON.stringify(whole)), 'objects one by one == the bytes folded')
  return whole
}

const chunksOf = (messages) => messages.filter((m) => m.role === 'assistant').map((m) => m.chunks)

test("Qwen Code: a failed prompt's cause is in error.data.details, not in the message", () => {
  const messages = readings([
    prompt(3, '[lab:model-error] Say something.'),
    { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Internal error', data: { details: '400 lab: this request is refused' } } },
  ])
  assert.deepEqual(chunksOf(messages), [[{ type: 'error', message: 'Internal error: 400 lab: this request is refused' }]])
})

test("codex-acp and OpenCode: the cause in data.message, or already in the message (data only names the service)", () => {
  const refused = '{"type":"error","error":{"type":"invalid_request_error","message":"lab: this request is refused","code":null}}'
  const codex = readings([prompt(2, 'Hi'), { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error', data: { message: refused, codex_error_info: 'other' } }, id: 2 }])
  assert.deepEqual(chunksOf(codex), [[{ type: 'error', message: `Internal error: ${refused}` }]])
  // codex-acp 0.4.4: the cause as data itself.
  const codex044 = readings([prompt(2, 'Hi'), { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error', data: `unexpected status 400 Bad Request: ${refused}` } }])
  assert.deepEqual(chunksOf(codex044), [[{ type: 'error', message: `Internal error: unexpected status 400 Bad Request: ${refused}` }]])
  const opencode = readings([prompt(2, 'Hi'), { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error: lab: this request is refused', data: { service: 'session', errorName: 'APIError' } } }])
  assert.deepEqual(chunksOf(opencode), [[{ type: 'error', message: 'Internal error: lab: this request is refused' }]])
  // A cause the message already says is not said twice; a string data is the cause.
  const same = readings([prompt(2, 'Hi'), { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error: boom', data: { details: 'boom' } } }])
  assert.deepEqual(chunksOf(same), [[{ type: 'error', message: 'Internal error: boom' }]])
  const plain = readings([prompt(2, 'Hi'), { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error', data: 'socket hang up' } }])
  assert.deepEqual(chunksOf(plain), [[{ type: 'error', message: 'Internal error: socket hang up' }]])
})

test('Qwen Code: the empty agent_message_chunk that carries its usage makes no chunk, live and on load alike', () => {
  const usage = { _meta: { usage: { inputTokens: 1200, outputTokens: 80, totalTokens: 1280 }, durationMs: 194 } }
  const empty = text('agent_message_chunk', '', usage)
  const call = (id, status, title, rawInput, kind = 'execute') => update({ sessionUpdate: 'tool_call', toolCallId: id, status, title, content: [], locations: [], kind, rawInput })
  const cat = { command: 'cat /nonexistent/lab-missing-file', description: 'lab command' }
  const failed1 = update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_lab_1_0', status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'Command: cat /nonexistent/lab-missing-file' } }] })
  const failed2 = update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_lab_2_0', status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'Tool "lab_no_such_tool" not found in registry.' } }] })
  // Live, the usage of each model call comes after the call it announced; on load, before it.
  const live = readings([
    prompt(3, '[lab:failing-tool] Read a file that is not there.'),
    call('call_lab_1_0', 'pending', 'Shell', {}),
    empty,
    update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_lab_1_0', status: 'in_progress', title: 'Shell: cat /nonexistent/lab-missing-file (lab command)', content: [], locations: [], kind: 'execute', rawInput: cat }),
    failed1,
    call('call_lab_2_0', 'pending', 'lab_no_such_tool', { x: 1 }, 'other'),
    empty,
    failed2,
    text('agent_message_chunk', 'The file does not exist,'),
    text('agent_message_chunk', ' and that tool is not available.'),
    empty,
    { jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } },
  ])
  const loaded = readings([
    text('user_message_chunk', '[lab:failing-tool] Read a file that is not there.'),
    empty,
    call('call_lab_1_0', 'in_progress', 'Shell: cat /nonexistent/lab-missing-file (lab command)', cat),
    failed1,
    empty,
    call('call_lab_2_0', 'in_progress', 'lab_no_such_tool', { x: 1 }, 'other'),
    failed2,
    text('agent_message_chunk', 'The file does not exist, and that tool is not available.'),
    empty,
  ])
  assert.deepEqual(chunksOf(live), chunksOf(loaded))
  assert.deepEqual(chunksOf(live)[0].map((c) => c.type), ['tool-batch', 'text'], 'one batch, not cut by an empty text')
  // An empty chunk alone opens no message.
  assert.deepEqual(readings([text('agent_message_chunk', '', usage)]), [])
})

test("Qwen Code: a call's title and input sent only in session/request_permission's toolCall are the call's", () => {
  const S2 = S
  const cmd = 'echo allowed > lab-made.txt && cat lab-made.txt'
  const output = [{ type: 'content', content: { type: 'text', text: `Command: ${cmd}\nOutput: allowed` } }]
  const live = readings([
    prompt(3, '[lab:permission] Write a file with a shell command.'),
    text('agent_message_chunk', 'Asking to run it.'),
    update({ sessionUpdate: 'tool_call', toolCallId: 'call_lab_1_0', status: 'pending', title: 'Shell', content: [], locations: [], kind: 'execute', rawInput: {} }),
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'session/request_permission',
      params: {
        sessionId: S2,
        options: [{ optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' }, { optionId: 'cancel', name: 'Reject', kind: 'reject_once' }],
        toolCall: { toolCallId: 'call_lab_1_0', status: 'pending', title: `${cmd} (lab command)`, content: [], locations: [], kind: 'execute', rawInput: { command: cmd, description: 'lab command' }, _meta: { toolName: 'run_shell_command' } },
      },
    },
    { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'proceed_once' } } },
    update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_lab_1_0', status: 'completed', content: output }),
    text('agent_message_chunk', 'The file was written.'),
    { jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } },
  ])
  assert.deepEqual(chunksOf(live), [[
    { type: 'text', text: 'Asking to run it.' },
    { type: 'tool-batch', calls: [{ id: 'call_lab_1_0', name: `${cmd} (lab command)`, arguments: { command: cmd, description: 'lab command' }, result: output, isError: false }] },
    { type: 'text', text: 'The file was written.' },
  ]])
  // A permission request without a toolCall object is traffic, nothing more.
  const bare = readings([prompt(3, 'Hi'), { jsonrpc: '2.0', id: 0, method: 'session/request_permission', params: { sessionId: S2, options: [], toolCall: 'call_lab_1_0' } }])
  assert.deepEqual(chunksOf(bare), [])
})

test("OpenCode: a step's thoughts under the reasoning part's id and its text under the message's are one message, as in its store and in Kilo's ACP", () => {
  const call = { toolCallId: 'call_lab_2_0', kind: 'execute', locations: [{ path: '/work' }] }
  const output = [{ type: 'content', content: { type: 'text', text: 'lab-tool-output\nnotes.txt\n' } }]
  const turn = (thoughtId, firstId, secondId) => [
    prompt(2, '[lab:tool] List the files here with a shell command.'),
    text('agent_thought_chunk', 'I should run ls.', { messageId: thoughtId }),
    text('agent_message_chunk', 'I will list the files.', { messageId: firstId }),
    update({ sessionUpdate: 'tool_call', ...call, title: 'bash', status: 'pending', rawInput: { cwd: '/work' } }),
    update({ sessionUpdate: 'tool_call_update', ...call, status: 'in_progress', title: 'echo lab-tool-output; ls -1', rawInput: { command: 'echo lab-tool-output; ls -1', description: 'Lists files' } }),
    update({ sessionUpdate: 'tool_call_update', ...call, status: 'completed', title: 'echo lab-tool-output; ls -1', content: output }),
    text('agent_message_chunk', 'The folder holds `notes.', { messageId: secondId }),
    text('agent_message_chunk', 'txt`.', { messageId: secondId }),
    { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn', usage: { inputTokens: 1200, outputTokens: 80, totalTokens: 1280 } } },
  ]
  const opencode = readings(turn('prt_2506d4cad001', 'msg_2506d31f5001', 'msg_2506d570e001'))
  const kilo = readings(turn('msg_2506d31f5001', 'msg_2506d31f5001', 'msg_2506d570e001'))
  const expected = [
    [
      { type: 'thinking', text: 'I should run ls.' },
      { type: 'text', text: 'I will list the files.' },
      { type: 'tool-batch', calls: [{ id: 'call_lab_2_0', name: 'echo lab-tool-output; ls -1', arguments: { command: 'echo lab-tool-output; ls -1', description: 'Lists files' }, result: output, isError: false }] },
    ],
    [{ type: 'text', text: 'The folder holds `notes.txt`.' }],
  ]
  assert.deepEqual(chunksOf(opencode), expected)
  assert.deepEqual(chunksOf(kilo), expected)
  // The message takes its first id; the next step's text, after the call, is a message of its own.
  assert.deepEqual(opencode.map((m) => m.id), ['line-1', 'prt_2506d4cad001', 'msg_2506d570e001'])
  // Two ids of one kind stay two messages; a thought after a call starts the next step.
  const steps = readings([
    text('agent_thought_chunk', 'a', { messageId: 'prt_1' }),
    text('agent_thought_chunk', 'b', { messageId: 'prt_2' }),
    text('agent_message_chunk', 'c', { messageId: 'msg_1' }),
    update({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'bash', status: 'completed' }),
    text('agent_thought_chunk', 'd', { messageId: 'prt_3' }),
    text('agent_message_chunk', 'e', { messageId: 'msg_2' }),
  ])
  assert.deepEqual(steps.map((m) => m.chunks.map((c) => c.type)), [['thinking'], ['thinking', 'text', 'tool-batch'], ['thinking', 'text']])
})

test('the ids of each kind, and whether a call came, go into the resume state: a log read up to any line goes on to the whole', () => {
  const lines = [
    text('agent_thought_chunk', 'a', { messageId: 'prt_1' }),
    text('agent_message_chunk', 'b', { messageId: 'msg_1' }),
    update({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'bash', status: 'completed' }),
    text('agent_message_chunk', '', { _meta: { usage: {} } }),
    text('agent_thought_chunk', 'c', { messageId: 'prt_2' }),
    text('agent_message_chunk', 'd', { messageId: 'msg_2' }),
    text('agent_thought_chunk', 'e', { messageId: 'prt_2' }),
    text('agent_message_chunk', 'f', { messageId: 'msg_3' }),
  ].map((m) => JSON.stringify(m) + '\n')
  const whole = foldStream(lines.join(''), { format: 'acp' }).messages
  assert.deepEqual(whole.map((m) => m.chunks.map((c) => c.type)), [['thinking', 'text', 'tool-batch'], ['thinking', 'text', 'thinking'], ['text']])
  for (let cut = 0; cut <= lines.length; cut++) {
    const { messages, resume } = JSON.parse(JSON.stringify(foldStream(lines.slice(0, cut).join(''), { format: 'acp' })))
    const live = new Conversation({ format: 'acp', messages, resume })
    live.push(lines.slice(cut).join(''))
    live.end()
    assert.deepEqual(JSON.parse(JSON.stringify(live.messages)), JSON.parse(JSON.stringify(whole)), `cut after line ${cut}`)
  }
})

// The lab's ACP captures (reduced), as a client on the SDK logged them.
const labRoot = join(root, '__test__', 'fixtures', 'lab')
const acpCaptures = readdirSync(labRoot)
  .filter((tool) => tool.endsWith('-acp'))
  .flatMap((tool) => readdirSync(join(labRoot, tool)).flatMap((version) => readdirSync(join(labRoot, tool, version)).map((scenario) => join(labRoot, tool, version, scenario))))

test("a backend's view: the SDK's parsed messages pushed one by one as objects fold as the same traffic as bytes, for every capture", () => {
  assert.ok(acpCaptures.length >= 8, `${acpCaptures.length} captures`)
  let logs = 0
  for (const dir of acpCaptures) {
    for (const name of ['live.ndjson', 'load.ndjson']) {
      if (!existsSync(join(dir, name))) continue
      const bytes = readFileSync(join(dir, name))
      const whole = JSON.parse(JSON.stringify(foldStream(bytes, { format: 'acp' }).messages))
      if (name === 'live.ndjson') assert.ok(whole.some((m) => m.role === 'assistant'), `${dir} ${name} has the agent's messages`)
      assert.deepEqual(foldObjects(bytes), whole, `${dir} ${name}`)
      logs++
    }
  }
  assert.ok(logs >= 2 * acpCaptures.length - 1, `${logs} logs`)
})

test('an ACP capture changed by one word in its load fails the check, with no reason', () => {
  const tmp = scratch()
  const dir = join(tmp.dir, 'qwen-tool')
  cpSync(join(labRoot, 'qwen-acp', '0.24.4', 'tool'), dir, { recursive: true })
  const load = join(dir, 'load.ndjson')
  writeFileSync(load, readFileSync(load, 'utf8').replace('The folder holds', 'The folder held'))
  const r = checkCapture(dir, JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')))
  assert.equal(r.verdict, 'differ', describeResult(r))
  assert.equal(r.streams[0].checks.load.result, 'differ')
  assert.equal(r.streams[0].checks.load.reason, undefined)
  assert.match(r.streams[0].checks.load.difference, /held|holds/)
  assert.equal(r.streams[0].checks.live.result, 'pass')
})

test("codex-acp: the permission request comes before the tool_call, with the proposed command as content; the tool_call is the whole call, its content what it sends", () => {
  const cmd = ['/bin/bash', '-lc', 'echo allowed > lab-made.txt && cat lab-made.txt']
  const title = 'echo allowed > lab-made.txt && cat lab-made.txt'
  const event = { call_id: 'call_lab_1_0', command: cmd, cwd: '/work' }
  const live = readings([
    prompt(2, '[lab:permission] Write a file with a shell command.'),
    text('agent_message_chunk', 'Asking to run it.'),
    {
      jsonrpc: '2.0',
      id: 'c5085a4f-214b-4c39-9d56-20a3d85803d7',
      method: 'session/request_permission',
      params: {
        sessionId: S,
        toolCall: { toolCallId: 'call_lab_1_0', kind: 'execute', status: 'pending', title, content: [{ type: 'content', content: { type: 'text', text: `Proposed Amendment: ${cmd.join('\n')}` } }], rawInput: event },
        options: [{ optionId: 'approved', name: 'Yes, proceed', kind: 'allow_once' }],
      },
    },
    update({ sessionUpdate: 'tool_call', toolCallId: 'call_lab_1_0', title, kind: 'execute', status: 'in_progress', rawInput: { ...event, process_id: '73641' } }),
    update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_lab_1_0', status: 'completed', rawOutput: { ...event, exit_code: 0, stdout: 'allowed\n' } }),
    text('agent_message_chunk', 'The file was written.'),
    { jsonrpc: '2.0', result: { stopReason: 'end_turn' }, id: 2 },
  ])
  assert.deepEqual(chunksOf(live)[0][1].calls, [{ id: 'call_lab_1_0', name: title, arguments: { ...event, process_id: '73641' }, result: { ...event, exit_code: 0, stdout: 'allowed\n' }, isError: false }])
})

test('Gemini CLI: a command announced only in session/request_permission is a call, completed by its update', () => {
  const id = 'run_shell_command__call_lab_1_0'
  const live = readings([
    prompt(2, '[lab:tool] List the files here with a shell command.'),
    text('agent_thought_chunk', '****\nI should run ls.'),
    text('agent_message_chunk', 'I will list the files.'),
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'session/request_permission',
      params: {
        sessionId: S,
        options: [{ optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' }],
        toolCall: { toolCallId: id, status: 'pending', title: 'echo lab-tool-output; ls -1', content: [{ type: 'content', content: { type: 'text', text: '[current working directory /work] (lab command)' } }], locations: [], kind: 'execute' },
      },
    },
    { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'proceed_once' } } },
    update({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', title: 'echo lab-tool-output; ls -1', content: [], locations: [], kind: 'execute' }),
    text('agent_message_chunk', 'The folder holds `notes.txt`.'),
    { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } },
  ])
  assert.deepEqual(chunksOf(live), [[
    { type: 'thinking', text: '****\nI should run ls.' },
    { type: 'text', text: 'I will list the files.' },
    { type: 'tool-batch', calls: [{ id, name: 'echo lab-tool-output; ls -1', result: [], isError: false }] },
    { type: 'text', text: 'The folder holds `notes.txt`.' },
  ]])
})
