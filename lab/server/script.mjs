// Which scripted turn answers a request. Stateless where it can be: a script is chosen by
// the marker its prompt carries (`[lab:NAME]`), and its step is the number of assistant
// turns after that prompt, so a retried request gets the same answer. Requests without
// tools (titles, topic checks) get a short side answer; a request whose last words ask for
// a summary is a compaction and gets a summary carrying the marker of the script that
// goes on after it.

const MARKER = /\[lab:([a-z0-9:-]+)\]/

// The words each tool's compaction prompt is known by (Claude Code, Codex, Copilot CLI,
// pi, Qwen Code, OpenCode); a background task's notification that merely carries a <summary> is not one.
export const COMPACTION_ASK =
  /summary of the conversation|CONTEXT CHECKPOINT|^Start Summarization$|<summary> block|summary for another LLM|summarizes internal chat history|state_snapshot|checkpoint summary|create a (detailed |structured |concise |new anchored )?summary/i

/**
 * @param {import('./request.mjs').ModelRequest} req
 * @param {{ scripts: Record<string, any[]>, summaryMarker?: string }} scenario
 * @returns {{ rule: string, script?: string, step?: number, turn: any }}
 */
export function chooseTurn(req, scenario) {
  const msgs = req.messages
  let lastText = -1
  for (let i = msgs.length - 1; i >= 0; i--) {
    if (msgs[i].role === 'user' && msgs[i].texts.some((t) => t.trim() !== '')) {
      lastText = i
      break
    }
  }
  // OpenCode's compaction prompt quotes the conversation (our marker with it) in <conversation> tags.
  const lastWords = (lastText >= 0 ? msgs[lastText].texts.join('\n') : '').replace(/<conversation>[\s\S]*<\/conversation>/g, '')
  const asksSummary = COMPACTION_ASK.test(lastWords.trim()) && !MARKER.test(lastWords) && !lastWords.includes('<task-notification>')
  if (req.tools.length === 0 && !asksSummary) {
    return { rule: 'side', turn: sideTurn(req) }
  }
  if (asksSummary && lastText === msgs.length - 1) {
    const after = scenario.summaryMarker ?? 'after-compaction'
    return {
      rule: 'compaction',
      turn: {
        text: `<summary>The user asked for a lab run; a command was run and printed its output. [lab:${after}]</summary>`,
      },
    }
  }
  // The latest user text that carries a marker names the script.
  for (let i = msgs.length - 1; i >= 0; i--) {
    if (msgs[i].role !== 'user') continue
    // The last marker of the message: a summary carried into a compacted history names
    // the script after the prompt it quotes.
    const all = [...msgs[i].texts.join('\n').matchAll(new RegExp(MARKER, 'g'))]
    if (all.length === 0) continue
    const name = all[all.length - 1][1]
    const script = scenario.scripts[name]
    if (!script) break
    let step = 0
    for (let j = i + 1; j < msgs.length; j++) if (msgs[j].role === 'assistant') step++
    if (step < script.length) return { rule: 'script', script: name, step, turn: script[step] }
    return { rule: 'script-done', script: name, step, turn: { text: 'Done.' } }
  }
  return { rule: 'unscripted', turn: { text: 'Done.' } }
}

function sideTurn(req) {
  // Claude Code asks its small model for JSON in some side requests (topic, title).
  if (/json/i.test(req.system)) return { text: '{"isNewTopic": false, "title": "Lab run"}' }
  return { text: 'Lab run' }
}

const schema = (tool) => tool.schema ?? {}

const SHELL_TOOLS = ['exec_command', 'shell_command', 'shell', 'Bash', 'bash', 'run_shell_command']
const READ_TOOLS = ['mcp__acp__Read', 'Read', 'read_file', 'read', 'ReadFile']
const PLAN_TOOLS = ['update_plan', 'TodoWrite', 'todo_write', 'todowrite', 'write_todos']
export const TASK_TOOLS = ['Task', 'Agent', 'spawn_agent', 'task', 'agent']

/** Fills the required parameters a schema names and the ones given. */
function argsFor(schema, given) {
  const args = { ...given }
  const props = schema?.properties ?? {}
  for (const key of schema?.required ?? []) {
    if (key in args) continue
    const p = props[key] ?? {}
    if (Array.isArray(p.enum)) args[key] = p.enum[0]
    else if (p.type === 'boolean') args[key] = false
    else if (p.type === 'number' || p.type === 'integer') args[key] = p.default ?? 30
    else if (p.type === 'array') args[key] = []
    else if (p.type === 'object') args[key] = {}
    else args[key] = 'lab step'
  }
  return args
}

/**
 * Turns a scripted call (`{tool: 'shell', cmd}`, `{tool: 'task', prompt}`, `{tool: 'wait'}`
 * or `{tool: 'raw', name, args}`) into the agent's own tool and arguments (null: this agent
 * has no such tool and the call is left out).
 * @returns {{ name: string, args: any, kind: string, namespace?: string } | null}
 */
export function resolveCall(call, req) {
  const tools = req.tools
  if (call.tool === 'wait') {
    // Codex's sub-agents run beside the turn: the parent waits for them with wait_agent,
    // naming the id spawn_agent answered with. Tools whose sub-agent call returns its
    // result (Claude Code's Task) have no such tool, and the call is left out.
    const tool = tools.find((t) => t.name === 'wait_agent')
    if (!tool) return null
    const ids = [...JSON.stringify(req.body).matchAll(/agent_id\\*":\\*"([0-9a-f-]{36})/g)].map((m) => m[1])
    return { name: tool.name, args: { targets: ids.slice(-1), timeout_ms: 30000 }, kind: 'function', namespace: tool.namespace }
  }
  if (call.tool === 'plan') {
    // The agent's todo list: Codex's update_plan, Claude Code's TodoWrite, Qwen Code's
    // todo_write, OpenCode's todowrite, Gemini CLI's write_todos, each in its own words.
    const tool = PLAN_TOOLS.map((n) => tools.find((t) => t.name === n)).find(Boolean)
    if (!tool) return null
    const steps = call.steps
    if (tool.name === 'update_plan') return { name: tool.name, args: { plan: steps.map(([step, status]) => ({ step, status })) }, kind: 'function' }
    const todos = steps.map(([content, status], i) =>
      tool.name === 'TodoWrite'
        ? { content, status, activeForm: content }
        : tool.name === 'todo_write'
          ? { id: String(i + 1), content, status }
          : tool.name === 'write_todos'
            ? { description: content, status }
            : { id: String(i + 1), content, status, priority: 'medium' },
    )
    return { name: tool.name, args: { todos }, kind: 'function', namespace: tool.namespace }
  }
  if (call.tool === 'read') {
    // A file read by the agent's own read tool, at the path its schema asks for: absolute
    // under the working directory its prompt names, where it names one.
    const tool = READ_TOOLS.map((n) => tools.find((t) => t.name === n)).find(Boolean)
    if (!tool) return null
    const props = tool.schema?.properties ?? {}
    const key = ['file_path', 'absolute_path', 'filePath', 'path'].find((k) => k in props) ?? 'path'
    const cwd = /[Ww]orking directory: (\/[^\s"\\]+)/.exec(JSON.stringify(req.body))?.[1]
    return { name: tool.name, args: argsFor(tool.schema, { [key]: cwd ? `${cwd}/${call.file}` : call.file }), kind: 'function', namespace: tool.namespace }
  }
  if (call.tool === 'raw') return { name: call.name, args: call.args ?? {}, kind: 'function' }
  if (call.tool === 'shell') {
    const tool = SHELL_TOOLS.map((n) => tools.find((t) => t.name === n)).find(Boolean)
    if (!tool) {
      const local = tools.find((t) => t.kind === 'local_shell')
      if (local) return { name: 'local_shell', args: { command: ['bash', '-lc', call.cmd] }, kind: 'local_shell' }
      return { name: 'shell', args: { command: call.cmd }, kind: 'function' }
    }
    const props = tool.schema?.properties ?? {}
    const key = 'cmd' in props ? 'cmd' : 'command'
    const value = props[key]?.type === 'array' ? ['bash', '-lc', call.cmd] : call.cmd
    const given = { [key]: value }
    if ('description' in props) given.description = call.description ?? 'lab command'
    return { name: tool.name, args: argsFor(tool.schema, given), kind: 'function' }
  }
  if (call.tool === 'task') {
    const tool = TASK_TOOLS.map((n) => tools.find((t) => t.name === n)).find(Boolean)
    if (!tool) return { name: 'Task', args: { prompt: call.prompt, description: call.description }, kind: 'function' }
    const props = tool.schema?.properties ?? {}
    const given = {}
    const promptKey = ['prompt', 'message', 'task', 'instructions', 'input'].find((k) => k in props) ?? 'prompt'
    given[promptKey] = call.prompt
    if ('description' in props) given.description = call.description ?? 'lab sub-agent'
    // Claude Code's Task requires a subagent_type; Codex's spawn_agent takes an optional
    // agent_type whose names are its own (a wrong one fails the spawn).
    for (const k of ['subagent_type', 'agent_type']) {
      if (!(schema(tool).required ?? []).includes(k)) continue
      const e = props[k]?.enum
      given[k] = !e || e.includes('general-purpose') ? 'general-purpose' : e[0]
    }
    return { name: tool.name, args: argsFor(tool.schema, given), kind: 'function', namespace: tool.namespace }
  }
  throw new Error(`unknown scripted call ${JSON.stringify(call)}`)
}
