// A model request of any of the three wire APIs, reduced to what the scripts decide on:
// the conversation as messages (user text, assistant turns, tool results) and the tools
// the agent declared, with their parameter schemas.

/**
 * @typedef {{ name: string, kind: 'function' | 'custom' | 'local_shell' | 'other', schema: any, namespace?: string }} Tool
 * @typedef {{ role: 'user' | 'assistant', texts: string[], calls: number, results: number }} Message
 * @typedef {{ api: string, model: string, stream: boolean, system: string, tools: Tool[], messages: Message[], body: any }} ModelRequest
 */

const textOf = (content) => {
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return []
  const out = []
  for (const part of content) {
    if (typeof part === 'string') out.push(part)
    else if (part && typeof part.text === 'string' && part.type !== 'thinking') out.push(part.text)
  }
  return out
}

/** Anthropic Messages: `{system, messages: [{role, content}], tools: [{name, input_schema}]}`. */
export function fromMessages(body) {
  const messages = []
  for (const m of body.messages ?? []) {
    const blocks = Array.isArray(m.content) ? m.content : [{ type: 'text', text: String(m.content ?? '') }]
    const texts = blocks.filter((b) => b.type === 'text').map((b) => b.text)
    const calls = blocks.filter((b) => b.type === 'tool_use').length
    const results = blocks.filter((b) => b.type === 'tool_result').length
    messages.push({ role: m.role === 'assistant' ? 'assistant' : 'user', texts, calls, results })
  }
  const tools = (body.tools ?? []).map((t) => ({
    name: t.name,
    kind: t.input_schema ? 'function' : 'other',
    schema: t.input_schema,
  }))
  return {
    api: 'messages',
    model: body.model,
    stream: !!body.stream,
    system: textOf(body.system).join('\n'),
    tools,
    messages,
    body,
  }
}

/** OpenAI chat completions: `{messages: [{role, content, tool_calls}], tools: [{function}]}`. */
export function fromChat(body) {
  const messages = []
  let system = []
  for (const m of body.messages ?? []) {
    if (m.role === 'system' || m.role === 'developer') {
      system.push(...textOf(m.content))
      continue
    }
    if (m.role === 'tool') {
      const last = messages[messages.length - 1]
      if (last && last.role === 'user' && last.texts.length === 0) last.results++
      else messages.push({ role: 'user', texts: [], calls: 0, results: 1 })
      continue
    }
    messages.push({
      role: m.role === 'assistant' ? 'assistant' : 'user',
      texts: textOf(m.content),
      calls: (m.tool_calls ?? []).length,
      results: 0,
    })
  }
  const tools = (body.tools ?? []).map((t) => ({
    name: t.function?.name ?? t.name,
    kind: 'function',
    schema: t.function?.parameters ?? t.parameters,
  }))
  return { api: 'chat', model: body.model, stream: !!body.stream, system: system.join('\n'), tools, messages, body }
}

/**
 * OpenAI Responses: `{instructions, input: [items], tools}`. Consecutive output items
 * (reasoning, assistant messages, calls) are one assistant turn.
 */
export function fromResponses(body) {
  const messages = []
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input ?? [])
  const push = (role) => {
    const last = messages[messages.length - 1]
    if (last && last.role === role && (role === 'assistant' || last.texts.length === 0)) return last
    const m = { role, texts: [], calls: 0, results: 0 }
    messages.push(m)
    return m
  }
  for (const item of input) {
    const type = item.type ?? 'message'
    if (type === 'message') {
      if (item.role === 'assistant') push('assistant').texts.push(...textOf(item.content))
      else if (item.role === 'user') {
        const m = { role: 'user', texts: textOf(item.content), calls: 0, results: 0 }
        messages.push(m)
      }
      // developer / system messages are instructions, not the conversation
    } else if (type.endsWith('_call_output') || type === 'function_call_output') {
      push('user').results++
    } else if (type.endsWith('_call') || type === 'reasoning') {
      const m = push('assistant')
      if (type !== 'reasoning') m.calls++
    } else if (type === 'compaction' || type === 'compaction_summary') {
      messages.push({ role: 'user', texts: [String(item.encrypted_content ?? '')], calls: 0, results: 0 })
    }
  }
  const tools = []
  const kindOf = (t) =>
    t.type === 'function' ? 'function' : t.type === 'custom' ? 'custom' : t.type === 'local_shell' ? 'local_shell' : 'other'
  for (const t of body.tools ?? []) {
    // Codex groups some tools in a namespace (`multi_agent_v1` holds `spawn_agent`).
    if (t.type === 'namespace') {
      for (const inner of t.tools ?? []) tools.push({ name: inner.name, kind: kindOf(inner), schema: inner.parameters, namespace: t.name })
    } else {
      tools.push({ name: t.name ?? t.type, kind: kindOf(t), schema: t.parameters })
    }
  }
  return {
    api: 'responses',
    model: body.model,
    stream: body.stream !== false,
    system: String(body.instructions ?? ''),
    tools,
    messages,
    body,
  }
}
