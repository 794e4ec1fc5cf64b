// The lab's scripted model server, offline (127.0.0.1 only, no agent installed): each wire
// API streams the scripted turn in its own events, a request finds its turn by the marker
// and the assistant turns after it, the agent's own tool names and schemas are used, a
// compaction prompt gets a summary naming the script that goes on, a Responses chain by
// previous_response_id is followed, a stall holds the response open until the client
// leaves, and bytes of a character can be cut between two writes.
import test from 'node:test'
import assert from 'node:assert/strict'

import { startServer } from '../lab/server/server.mjs'
import { chooseTurn } from '../lab/server/script.mjs'
import { fromChat, fromMessages } from '../lab/server/request.mjs'
import { SCENARIOS } from '../lab/scenarios.mjs'
import { SseWriter } from '../lab/server/stream.mjs'

/** The `data:` payloads of an SSE body, parsed (`[DONE]` kept as a string). */
function sse(text) {
  return text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((l) => l.startsWith('data: ')))
    .filter(Boolean)
    .map((l) => l.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)))
}

async function post(url, path, body) {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, events: sse(await res.text()) }
}

const bash = { name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' } }, required: ['command'] } }

test('Messages: thinking with its signature, text, a tool call in the agent\'s own tool, then the next step after the result', async () => {
  const server = await startServer({ scenario: SCENARIOS.tool })
  try {
    const prompt = { role: 'user', content: SCENARIOS.tool.prompt }
    const first = await post(server.url, '/v1/messages?beta=true', { model: 'm', stream: true, tools: [bash], messages: [prompt] })
    assert.equal(first.status, 200)
    const types = first.events.map((e) => e.type)
    assert.equal(types[0], 'message_start')
    assert.equal(types.at(-1), 'message_stop')
    const starts = first.events.filter((e) => e.type === 'content_block_start').map((e) => e.content_block.type)
    assert.deepEqual(starts, ['thinking', 'text', 'tool_use'])
    assert.ok(first.events.some((e) => e.delta?.type === 'signature_delta' && e.delta.signature.length > 0))
    const json = first.events.filter((e) => e.delta?.type === 'input_json_delta').map((e) => e.delta.partial_json).join('')
    assert.deepEqual(JSON.parse(json), { command: 'echo lab-tool-output; ls -1', description: 'lab command' })
    assert.equal(first.events.find((e) => e.type === 'message_delta').delta.stop_reason, 'tool_use')

    const second = await post(server.url, '/v1/messages', {
      model: 'm',
      stream: true,
      tools: [bash],
      messages: [
        prompt,
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] },
      ],
    })
    const text = second.events.filter((e) => e.delta?.type === 'text_delta').map((e) => e.delta.text).join('')
    assert.equal(text, SCENARIOS.tool.scripts.tool[1].text)
    assert.deepEqual(
      server.requests.filter((r) => r.rule).map((r) => [r.rule, r.script, r.step]),
      [['script', 'tool', 0], ['script', 'tool', 1]],
    )
  } finally {
    await server.close()
  }
})

test('Responses: reasoning summary with encrypted content, a namespaced function call, and a chain by previous_response_id', async () => {
  const server = await startServer({ scenario: SCENARIOS.subagent })
  try {
    const tools = [
      { type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } },
      {
        type: 'namespace',
        name: 'multi_agent_v1',
        tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: { message: { type: 'string' }, agent_type: { type: 'string' } } } }],
      },
    ]
    const first = await post(server.url, '/v1/responses', { model: 'm', stream: true, tools, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: SCENARIOS.subagent.prompt }] }] })
    const done = first.events.at(-1)
    assert.equal(done.type, 'response.completed')
    const call = done.response.output.find((o) => o.type === 'function_call')
    assert.equal(call.name, 'spawn_agent')
    assert.equal(call.namespace, 'multi_agent_v1')
    assert.deepEqual(JSON.parse(call.arguments), { message: '[lab:sub] Run one command and report.' }, 'no agent_type is made up')
    // The next request names the previous response and sends only the output of the call.
    const second = await post(server.url, '/v1/responses', {
      model: 'm',
      stream: true,
      tools,
      previous_response_id: done.response.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"agent_id":"01a21f10-7e14-7eb2-b7b2-bf5ec10ce000"}' }],
    })
    const next = second.events.at(-1).response.output
    assert.equal(next.find((o) => o.type === 'message').content[0].text, 'The sub-agent reported back: 42.')
    assert.deepEqual(server.requests.map((r) => [r.script, r.step]), [['subagent', 0], ['subagent', 1]])
  } finally {
    await server.close()
  }
  const thinking = await startServer({ scenario: SCENARIOS.thinking })
  try {
    const r = await post(thinking.url, '/v1/responses', { model: 'm', stream: true, tools: [], input: SCENARIOS.thinking.prompt })
    // No tools: a side request (a title), not the script.
    assert.equal(thinking.requests[0].rule, 'side')
    assert.equal(r.events.at(-1).type, 'response.completed')
    const r2 = await post(thinking.url, '/v1/responses', { model: 'm', stream: true, tools: [{ type: 'function', name: 'shell' }], input: SCENARIOS.thinking.prompt })
    const reasoning = r2.events.at(-1).response.output[0]
    assert.equal(reasoning.type, 'reasoning')
    assert.deepEqual(reasoning.summary, [{ type: 'summary_text', text: 'The user asks for 6 × 7. That is 42.' }])
    assert.ok(reasoning.encrypted_content.length > 0)
    const deltas = r2.events.filter((e) => e.type === 'response.reasoning_summary_text.delta').map((e) => e.delta).join('')
    assert.equal(deltas, reasoning.summary[0].text)
  } finally {
    await thinking.close()
  }
})

test('chat completions: reasoning_content, tool_calls by index, usage and [DONE]', async () => {
  const server = await startServer({ scenario: SCENARIOS.parallel })
  try {
    const tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } }]
    const r = await post(server.url, '/v1/chat/completions', {
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      tools,
      messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: SCENARIOS.parallel.prompt }],
    })
    assert.equal(r.events.at(-1), '[DONE]')
    const calls = {}
    for (const e of r.events.slice(0, -1)) {
      for (const c of e.choices?.[0]?.delta?.tool_calls ?? []) {
        calls[c.index] ??= { name: '', args: '' }
        if (c.function?.name) calls[c.index].name = c.function.name
        calls[c.index].args += c.function?.arguments ?? ''
      }
    }
    assert.deepEqual(Object.values(calls).map((c) => [c.name, JSON.parse(c.args).command]), [
      ['bash', 'echo first-call'],
      ['bash', 'echo second-call'],
    ])
    assert.equal(r.events.find((e) => e.choices?.[0]?.finish_reason).choices[0].finish_reason, 'tool_calls')
    assert.equal(r.events.at(-2).usage.total_tokens, 1280)
  } finally {
    await server.close()
  }
})

test('a compaction prompt gets a summary naming the script that goes on; a background notice with a <summary> is not one', () => {
  const scenario = SCENARIOS.compact
  const req = (messages) => fromMessages({ model: 'm', tools: [bash], messages })
  const prompt = { role: 'user', content: scenario.prompt }
  const step0 = { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Bash', input: {} }] }
  const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }
  const ask = chooseTurn(req([prompt, step0, result, { role: 'user', content: 'Your task is to create a detailed summary of the conversation so far.' }]), scenario)
  assert.equal(ask.rule, 'compaction')
  assert.match(ask.turn.text, /\[lab:after-compaction\]/)
  const after = chooseTurn(req([{ role: 'user', content: `Summary: ${ask.turn.text}` }]), scenario)
  assert.deepEqual([after.rule, after.script, after.step], ['script', 'after-compaction', 0])
  // The quoted prompt and the summary in one message: the last marker names the script.
  const both = chooseTurn(req([{ role: 'user', content: `${scenario.prompt}\n${ask.turn.text}` }]), scenario)
  assert.equal(both.script, 'after-compaction')
  const notice = chooseTurn(req([prompt, step0, result, { role: 'user', content: '<task-notification><summary>Agent finished</summary></task-notification>' }]), scenario)
  assert.notEqual(notice.rule, 'compaction')
  // OpenCode asks with no tools, quoting the conversation (our marker in it) in <conversation> tags.
  const quoted = `Here is the conversation so far:\n\n<conversation>\n[User]: "${scenario.prompt}"\n</conversation>\n\nCreate a new anchored summary from the conversation history in the <conversation> tags above.`
  const opencode = chooseTurn(fromChat({ model: 'm', messages: [{ role: 'system', content: 'x' }, { role: 'user', content: scenario.prompt }, { role: 'user', content: quoted }] }), scenario)
  assert.equal(opencode.rule, 'compaction')
  assert.match(opencode.turn.text, /\[lab:after-compaction\]/)
})

test('a stall streams the partial text, calls onStall and ends when the client goes away', async () => {
  let stalled = 0
  const server = await startServer({ scenario: SCENARIOS.abort, onStall: () => stalled++ })
  try {
    const controller = new AbortController()
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true, tools: [{ type: 'function', function: { name: 'bash' } }], messages: [{ role: 'user', content: SCENARIOS.abort.prompt }] }),
      signal: controller.signal,
    })
    let text = ''
    const reading = (async () => {
      for await (const c of res.body) text += Buffer.from(c).toString('utf8')
    })().catch(() => {})
    while (stalled === 0) await new Promise((r) => setTimeout(r, 20))
    await new Promise((r) => setTimeout(r, 100))
    const deltas = sse(text).map((e) => e.choices[0].delta.content ?? '').join('')
    assert.equal(deltas, SCENARIOS.abort.scripts.abort[0].text)
    assert.ok(!text.includes('[DONE]') && !text.includes('finish_reason":"stop'))
    controller.abort()
    await reading
    assert.equal(stalled, 1)
  } finally {
    await server.close()
  }
})

test('bytes of a character cut between writes still make the same event', async () => {
  const writes = []
  const res = { writeHead() {}, write: (b) => writes.push(Buffer.from(b)), on() {}, end() {} }
  const w = new SseWriter(res, { rawSplit: true })
  await w.event('content_block_delta', { text: 'Übersicht 漢字 😀' })
  assert.equal(writes.length, 2)
  assert.equal(writes[0].at(-1), 0xc3, 'the first write ends on the lead byte of Ü')
  assert.deepEqual(sse(Buffer.concat(writes).toString('utf8')), [{ text: 'Übersicht 漢字 😀' }])
  const plain = []
  await new SseWriter({ ...res, write: (b) => plain.push(b) }).event(null, { text: 'Ü' })
  assert.equal(plain.length, 1, 'without rawSplit an event is one write')
})

test("a refused request (ACP's model-error scenario): the status and an error body both APIs' clients read", async () => {
  const server = await startServer({ scenario: SCENARIOS['model-error'] })
  try {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, tools: [{ type: 'function', function: { name: 'bash', parameters: {} } }], messages: [{ role: 'user', content: SCENARIOS['model-error'].prompt }] }),
    })
    assert.equal(res.status, 400)
    assert.deepEqual(await res.json(), { type: 'error', error: { type: 'invalid_request_error', message: 'lab: this request is refused', code: null } })
    assert.equal(server.requests.at(-1).script, 'model-error')
  } finally {
    await server.close()
  }
})

test("a plan (ACP's plan scenario) is a call of the agent's own todo tool, in its own words", async () => {
  const server = await startServer({ scenario: SCENARIOS.plan })
  try {
    const call = async (tool) => {
      const r = await post(server.url, '/v1/chat/completions', {
        model: 'm',
        stream: true,
        tools: [{ type: 'function', function: { name: tool, parameters: { type: 'object', properties: {} } } }],
        messages: [{ role: 'user', content: SCENARIOS.plan.prompt }],
      })
      const deltas = r.events.slice(0, -1).flatMap((e) => e.choices?.[0]?.delta?.tool_calls ?? [])
      return [deltas[0]?.function?.name, deltas.length ? JSON.parse(deltas.map((d) => d.function?.arguments ?? '').join('')) : undefined]
    }
    assert.deepEqual(await call('update_plan'), ['update_plan', { plan: [{ step: 'Read the notes', status: 'completed' }, { step: 'Write the answer', status: 'in_progress' }] }])
    assert.deepEqual(await call('TodoWrite'), ['TodoWrite', { todos: [{ content: 'Read the notes', status: 'completed', activeForm: 'Read the notes' }, { content: 'Write the answer', status: 'in_progress', activeForm: 'Write the answer' }] }])
    assert.deepEqual((await call('todowrite'))[1].todos[0], { id: '1', content: 'Read the notes', status: 'completed', priority: 'medium' })
    // An agent without a todo tool gets the turn's text alone.
    assert.deepEqual(await call('bash'), [undefined, undefined])
  } finally {
    await server.close()
  }
})

test("Gemini API: thoughts as thought parts, text, a functionCall in the agent's own tool, the model and the method from the path", async () => {
  const server = await startServer({ scenario: SCENARIOS.tool })
  try {
    const tools = [{ functionDeclarations: [{ name: 'run_shell_command', parametersJsonSchema: { type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' } }, required: ['command'] } }] }]
    const user = { role: 'user', parts: [{ text: SCENARIOS.tool.prompt }] }
    const first = await post(server.url, '/v1beta/models/lab-model:streamGenerateContent?alt=sse', { contents: [user], tools, systemInstruction: { parts: [{ text: 'sys' }] } })
    const parts = first.events.flatMap((e) => e.candidates[0].content.parts)
    assert.equal(parts.filter((p) => p.thought).map((p) => p.text).join(''), 'I should run ls.')
    assert.equal(parts.filter((p) => !p.thought && p.text).map((p) => p.text).join(''), 'I will list the files.')
    const call = parts.find((p) => p.functionCall).functionCall
    assert.deepEqual([call.name, call.args.command], ['run_shell_command', 'echo lab-tool-output; ls -1'])
    assert.equal(first.events.at(-1).candidates[0].finishReason, 'STOP')
    assert.equal(first.events.at(-1).usageMetadata.totalTokenCount, 1280)
    assert.equal(server.requests.at(-1).body.model, 'lab-model')
    // The call's response comes back: the next step.
    const second = await post(server.url, '/v1beta/models/lab-model:streamGenerateContent?alt=sse', {
      contents: [user, { role: 'model', parts: [{ functionCall: call }] }, { role: 'user', parts: [{ functionResponse: { name: call.name, response: { output: 'lab-tool-output' } } }] }],
      tools,
    })
    assert.equal(second.events.flatMap((e) => e.candidates[0].content.parts).map((p) => p.text ?? '').join(''), 'The folder holds `notes.txt`; the command printed lab-tool-output.')
    assert.equal(server.requests.at(-1).step, 1)
  } finally {
    await server.close()
  }
})

test("a file read (ACP's client-tools scenario) is a call of the agent's own read tool, absolute under the working directory its prompt names", async () => {
  const server = await startServer({ scenario: SCENARIOS['client-tools'] })
  try {
    const read = { name: 'Read', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } }
    const r = await post(server.url, '/v1/messages', {
      model: 'm',
      stream: true,
      system: 'Working directory: /lab/work\nmore',
      tools: [bash, read],
      messages: [
        { role: 'user', content: SCENARIOS['client-tools'].prompt },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'notes.txt' }] },
      ],
    })
    const start = r.events.find((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use')
    const json = r.events.filter((e) => e.delta?.type === 'input_json_delta').map((e) => e.delta.partial_json).join('')
    assert.deepEqual([start.content_block.name, JSON.parse(json)], ['Read', { file_path: '/lab/work/notes.txt' }])
  } finally {
    await server.close()
  }
})
