// Differences the tools themselves make between what they stream, what they store and what
// they show. A comparison of lab/check.mjs that differs gets a reason from this table only
// when the reason's test recognises the difference in the data — most by setting aside what
// the tool is known to do and finding the rest equal — never by the capture's name alone.
// Anything no reason recognises is a difference of ours.
import { codexItems, itemsDiffer, messagesDiffer } from './compare.mjs'

const interrupted = (ctx) => ctx.run?.stalls > 0 || ctx.run?.steps?.some((s) => s.signal === 'SIGINT')
const last = (list) => list[list.length - 1]
const textOnly = (m) => m && m.chunks.every((c) => c.type === 'text')

/** Consecutive assistant messages as one (an agent's file keeps each model response as a message). */
function joinBlocks(messages) {
  const out = []
  for (const m of messages) {
    const prev = last(out)
    if (prev && prev.role === 'assistant' && m.role === 'assistant') prev.chunks = [...prev.chunks, ...m.chunks]
    else out.push({ role: m.role, chunks: [...m.chunks] })
  }
  // Calls of one response split over blocks come together as one batch.
  for (const m of out) {
    const merged = []
    for (const c of m.chunks) {
      const prev = last(merged)
      if (prev?.type === 'tool-batch' && c.type === 'tool-batch') merged[merged.length - 1] = { ...prev, calls: [...prev.calls, ...c.calls] }
      else merged.push(c)
    }
    m.chunks = merged
  }
  return out
}

// Qwen Code cuts a long result where it passes a limit: its stream-json a text whose JSON is
// over 64 KiB (65,536 bytes), its chat recording a display's text to 32,000 characters
// (stating the length it had); each keeps a start and an end.
const HEADLESS_CUT = /\n\[\.\.\. truncated for Headless transport \.\.\.\]\n/
const PREVIEW_CUT = /\n\[\.\.\. truncated for saved session preview; original length: (\d+) characters \.\.\.\]\n/
const HEADLESS_BUDGET = 65536
/** A result's start and end around a cut of Qwen Code's (the whole text as both when it has none), the cut's kind and the length it states. */
function qwenCut(text) {
  for (const [cut, marker] of [['headless', HEADLESS_CUT], ['preview', PREVIEW_CUT]]) {
    const at = text.match(marker)
    if (at) return { head: text.slice(0, at.index), tail: text.slice(at.index + at[0].length), cut, length: at[1] === undefined ? undefined : Number(at[1]) }
  }
  return { head: text, tail: text, cut: undefined }
}
/** Whether `whole` is a text Qwen Code would have cut as `part` is cut: long enough to hold its start and end apart, past that cut's limit. */
function cutFrom(part, whole) {
  if (whole.length < part.head.length + part.tail.length) return false
  if (part.cut === 'headless') return Buffer.byteLength(JSON.stringify(whole), 'utf8') > HEADLESS_BUDGET
  return whole.length === part.length
}
/** Whether two results are one text cut differently: the shorter start begins the longer, the shorter end ends it, and a whole side is one the other's cut was made of. */
function sameCutText(a, b) {
  if (typeof a !== 'string' || typeof b !== 'string') return false
  const x = qwenCut(a)
  const y = qwenCut(b)
  if (!x.cut && !y.cut) return false
  const starts = x.head.startsWith(y.head) || y.head.startsWith(x.head)
  const ends = x.tail.endsWith(y.tail) || y.tail.endsWith(x.tail)
  if (!starts || !ends) return false
  if (!x.cut) return cutFrom(y, a)
  if (!y.cut) return cutFrom(x, b)
  // Both cut (the stream's of a text the recording cut too): the length a preview states holds both starts and ends.
  const kept = Math.max(x.head.length + x.tail.length, y.head.length + y.tail.length)
  return [x, y].every((c) => c.cut !== 'preview' || c.length >= kept)
}
const callsOf = (messages) => messages.flatMap((m) => m.chunks.flatMap((c) => (c.type === 'tool-batch' ? c.calls : [])))
/** The two sides with the results each cut its own way set aside, and how many there were. */
function withoutCutResults(streamed, stored) {
  const kept = new Map(callsOf(stored).map((call) => [call.id, call.result]))
  const cut = new Set(callsOf(streamed).filter((call) => kept.has(call.id) && sameCutText(call.result, kept.get(call.id))).map((call) => call.id))
  const strip = (messages) => messages.map((m) => ({ role: m.role, chunks: m.chunks.map((c) => (c.type === 'tool-batch' ? { ...c, calls: c.calls.map(({ result, ...call }) => (cut.has(call.id) ? call : { ...call, result })) } : c)) }))
  return { cut: cut.size, streamed: strip(streamed), stored: strip(stored) }
}
/** Qwen Code 0.15's recording keeps an answer's text without its trailing whitespace (see qwen-recording-trims-text). */
const trimsText = (ctx) => /^0\.15\./.test(ctx.version ?? '')
/** Qwen Code's stream and its recording agree, long results cut their own ways set aside (and text ends, for a version that trims them). */
function qwenAgree(ctx, streamed, stored) {
  const rest = withoutCutResults(streamed, stored)
  return !messagesDiffer(rest.streamed, rest.stored) || (trimsText(ctx) && !messagesDiffer(trimmed(rest.streamed), trimmed(rest.stored)))
}
const trimmed = (messages) => messages.map((m) => ({ role: m.role, chunks: m.chunks.map((c) => (c.type === 'text' ? { ...c, text: c.text.trimEnd() } : c)) }))

// ACP: what session/load and the agents' own files hold against the live traffic.
const acp = (ctx) => ctx.family === 'acp'
/** The turn's ending as only the live client sees it: stop reasons and a failed prompt's error. */
const withoutEndings = (messages) =>
  messages
    .map((m) => ({ role: m.role, chunks: m.chunks.filter((c) => !(c.type === 'error' || (c.type === 'system' && (c.kind === 'cancelled' || c.kind === 'stopped')))) }))
    .filter((m) => m.chunks.length)
/** Calls by what they are (id and arguments), not by how the agent titles or shows them. */
const callsById = (messages, withArguments = true) =>
  messages.map((m) => ({
    role: m.role,
    chunks: m.chunks.map((c) => (c.type === 'tool-batch' ? { type: c.type, calls: c.calls.map((call) => (withArguments ? { id: call.id, arguments: call.arguments } : { id: call.id })) } : c)),
  }))
/** A reading of the agent's file in ACP's terms: a turn's steps as one message, thinking without its signature, calls by id. */
const asShown = (messages) =>
  callsById(joinBlocks(messages), false).map((m) => ({
    role: m.role,
    chunks: m.chunks
      .map(({ metadata, ...c }) => c)
      .filter((c) => !(c.type === 'text' && c.text === ''))
      // A reasoning's parts (Codex's summary and raw text) as ACP streams them: one thought.
      .reduce((out, c) => (c.type === 'thinking' && last(out)?.type === 'thinking' ? [...out.slice(0, -1), { ...last(out), text: last(out).text + c.text }] : [...out, c]), []),
  }))
/** Plans set aside, and the todo tool's calls an agent sends as plans (TodoWrite, update_plan, …). */
const TODO = /^(TodoWrite|todo_write|todowrite|update_plan)$/
const noPlans = (messages) => messages.map((m) => ({ ...m, chunks: m.chunks.filter((c) => !(c.type === 'system' && c.kind === 'plan')) }))
const noTodoCalls = (messages) =>
  messages.map((m) => ({ ...m, chunks: m.chunks.map((c) => (c.type === 'tool-batch' ? { ...c, calls: c.calls.filter((call) => !TODO.test(call.name)) } : c)).filter((c) => !(c.type === 'tool-batch' && c.calls.length === 0)) }))

/**
 * name → { checks: the comparisons it can explain, why: the tool's behaviour, measured,
 * test(ctx): true when the difference is that one }. `ctx` holds the capture (tool,
 * version, scenario, run) and the two sides compared: `streamed` / `stored` (assistant
 * messages) for reload, `ours` / `theirs` for view, `cut` for a live fold refused at its end.
 */
export const REASONS = {
  'stdout-cut-on-exit': {
    checks: ['live', 'reload'],
    why: 'the tool exited 0 with the last line of its stdout cut short (Claude Code 2.0.0 / 2.1.1 with a 200 KB answer); the live fold refuses the cut line, the session file has the whole answer',
    test: (ctx) => {
      if (!ctx.cut) return false
      if (!ctx.streamed) return true
      // Every turn the stream finished is the stored one; only the cut end is missing.
      return ctx.streamed.length < ctx.stored.length && !messagesDiffer(ctx.streamed, ctx.stored.slice(0, ctx.streamed.length))
    },
  },
  'interrupted-turn': {
    checks: ['reload'],
    why: 'the run was interrupted (SIGINT) while the answer streamed: the stream has the text streamed so far, the session file keeps none of it (Claude Code 2.1.1 / 2.1.197 with partial messages, Copilot, Qwen Code without partial messages keeps it the other way round) or a trimmed copy (Qwen Code)',
    test: (ctx) => {
      if (!interrupted(ctx)) return false
      const [s, h] = [ctx.streamed, ctx.stored]
      // The same turns before the interrupted one; the interrupted one text only, on either side.
      const n = Math.min(s.length, h.length) - (s.length === h.length ? 1 : 0)
      if (messagesDiffer(s.slice(0, n), h.slice(0, n))) return false
      return [...s.slice(n), ...h.slice(n)].every(textOnly) && Math.abs(s.length - h.length) <= 1
    },
  },
  'killed-before-written': {
    checks: ['reload'],
    why: 'the run was interrupted before the tool wrote its session file (pi writes a message when it ends; Claude Code 2.0.0 wrote nothing on SIGINT; the TypeScript Codex writes its rollout from its terminal UI)',
    test: (ctx) => ctx.noSession === true && interrupted(ctx),
  },
  'qwen-stream-cuts-results': {
    checks: ['reload'],
    why: "Qwen Code's stream-json cuts a tool's result to 64 KiB of JSON (its start and end around \"[... truncated for Headless transport ...]\"), which its chat recording keeps whole, or, a display's text of more than 32,000 characters, as its own start and end around \"[... truncated for saved session preview ...]\" (a command printing about 1 MB). The two are one text: with such results set aside where their starts and ends agree and the whole side is one that cut is made of (its JSON over 65,536 bytes; the length the preview states), the two agree",
    test: (ctx) => {
      if (ctx.family !== 'qwen') return false
      const rest = withoutCutResults(ctx.streamed, ctx.stored)
      return rest.cut > 0 && !messagesDiffer(rest.streamed, rest.stored)
    },
  },
  'qwen-recording-trims-text': {
    checks: ['reload'],
    why: "Qwen Code 0.15.10 records an answer's text without its trailing whitespace (\"… 0123456789.\" where its stream-json has \"… 0123456789. \\n\"); 0.24.4 records it whole. With text ends trimmed (and long results cut as qwen-stream-cuts-results says), the two agree",
    test: (ctx) => {
      if (ctx.family !== 'qwen' || !trimsText(ctx)) return false
      const rest = withoutCutResults(ctx.streamed, ctx.stored)
      return !messagesDiffer(trimmed(rest.streamed), trimmed(rest.stored))
    },
  },
  'qwen-api-error-not-recorded': {
    checks: ['reload'],
    why: 'Qwen Code streams a model error as the assistant\'s text ("[API Error: …]", 0.24.4 refusing to go on after compaction) and does not record it in the chat file; the rest agrees (as qwen-stream-cuts-results and qwen-recording-trims-text say)',
    test: (ctx) => {
      if (ctx.family !== 'qwen') return false
      const end = last(ctx.streamed)
      return textOnly(end) && /^\[API Error: /.test(end.chunks[0]?.text ?? '') && qwenAgree(ctx, ctx.streamed.slice(0, -1), ctx.stored)
    },
  },
  'codex-view-without-calls': {
    checks: ['view'],
    why: "Codex 0.138–0.147 do not persist command and sub-agent events in the rollout, so the app server's thread/read shows no calls; we show them from the rollout's function_call items. With our calls set aside, the two agree",
    test: (ctx) => ctx.family.startsWith('codex') && !itemsDiffer(ctx.ours.filter((i) => i.type !== 'call'), ctx.theirs.filter((i) => i.type !== 'call')) && ctx.theirs.every((i) => i.type !== 'call'),
  },
  'codex-reread-without-calls': {
    checks: ['read', 'resume'],
    why: "Codex 0.138–0.147 do not persist command and sub-agent events in the rollout, so thread/read and thread/resume rebuild the thread without the calls the app server streamed live. With those calls set aside, the two agree",
    test: (ctx) => {
      if (ctx.family !== 'codex-app-server' || !ctx.streamed) return false
      const noCalls = (messages) => messages.map((m) => ({ ...m, chunks: m.chunks.filter((c) => c.type !== 'tool-batch') })).filter((m) => m.chunks.length)
      return !ctx.stored.some((m) => m.chunks.some((c) => c.type === 'tool-batch')) && !messagesDiffer(noCalls(ctx.streamed), noCalls(ctx.stored))
    },
  },
  'codex-view-without-unknown-tool': {
    checks: ['view'],
    why: 'a call of a tool that does not exist gets a function_call and an "unsupported call" output in the rollout but no item event, so Codex shows nothing of it; we show the failed call',
    test: (ctx) => ctx.family.startsWith('codex') && !itemsDiffer(ctx.ours.filter((i) => !(i.type === 'call' && /^unsupported call: /.test(String(i.output)))), ctx.theirs),
  },
  'claude-sdk-error-as-text': {
    checks: ['view'],
    why: "Claude Code's getSessionMessages gives its synthetic \"Prompt is too long\" answer as a plain assistant message without the error flag the transcript line has (2.1.197's failed compaction): we show an error chunk, its view a text",
    test: (ctx) => {
      if (ctx.family !== 'claude') return false
      const asText = (messages) => messages.map((m) => ({ role: m.role, chunks: m.chunks.map((c) => (c.type === 'error' ? { type: 'text', text: c.message } : c)) }))
      return !messagesDiffer(asText(ctx.ours), ctx.theirs)
    },
  },
  'acp-load-replays-no-endings': {
    checks: ['load', 'files'],
    why: "session/load replays a session's messages, not the answers to its prompts, and the agents keep no record of them: a turn's stop reason (cancelled, max_tokens, refusal) and a failed prompt's error are the live client's alone. With those set aside, the two agree",
    test: (ctx) => acp(ctx) && !messagesDiffer(withoutEndings(ctx.streamed), withoutEndings(ctx.stored)) && messagesDiffer(ctx.streamed, ctx.stored) !== undefined,
  },
  'acp-shows-not-stores': {
    checks: ['files'],
    why: "ACP carries a call as the agent shows it — its title (the command, \"Shell: …\", \"Read a.rs\") and display content — and runs a turn's steps together, while the agent's own file keeps each model response as a message, a call by its tool's name (run_shell_command, Bash, exec_command) with the output the model was given (Qwen Code's read as its stream-json shows it: a command's output without the \"Command: …\" lines its ACP content has), and thinking with its signature. With the file's steps joined, calls compared by id and signatures set aside, the two agree",
    test: (ctx) => acp(ctx) && !messagesDiffer(asShown(withoutEndings(ctx.streamed)), asShown(ctx.stored)),
  },
  'acp-cancelled-text-not-kept': {
    checks: ['load', 'files'],
    why: 'the client cancelled the turn (session/cancel) while the answer streamed: live it has the text streamed so far, and the agent keeps none of it (Claude Code writes a response to its transcript only once it is whole), so session/load replays none. With the cancelled turn\'s text-only answer set aside, the two agree',
    test: (ctx) => {
      if (!acp(ctx) || !interrupted(ctx)) return false
      const end = last(ctx.streamed)
      const cancelled = end?.chunks.some((c) => c.type === 'system' && c.kind === 'cancelled')
      const rest = end?.chunks.filter((c) => !(c.type === 'system' && c.kind === 'cancelled'))
      return cancelled && rest.every((c) => c.type === 'text') && !messagesDiffer(asShown(ctx.streamed.slice(0, -1)), asShown(withoutEndings(ctx.stored)))
    },
  },
  'acp-plan-for-todo-call': {
    checks: ['files'],
    why: "an agent sends its todo tool's call (Claude Code's TodoWrite, Codex's update_plan) as an ACP plan, never as a tool call; its file keeps the call and its result. With the plans and those calls set aside, the two agree as acp-shows-not-stores says",
    test: (ctx) => {
      if (!acp(ctx)) return false
      return !messagesDiffer(asShown(noPlans(withoutEndings(ctx.streamed))), asShown(noTodoCalls(ctx.stored)))
    },
  },
  'claude-acp-api-error-as-text': {
    checks: ['load'],
    why: 'Claude Code keeps a failed model call as an assistant message whose text is "API Error: …", and session/load replays it as agent text; live, claude-agent-acp fails the prompt with "Internal error: API Error: …". With the live error read as that text, the two agree',
    test: (ctx) => {
      if (ctx.tool !== 'claude-acp') return false
      const asText = (messages) => messages.map((m) => ({ role: m.role, chunks: m.chunks.map((c) => (c.type === 'error' ? { type: 'text', text: c.message.replace(/^Internal error: /, '') } : c)) }))
      return !messagesDiffer(asText(ctx.streamed), ctx.stored)
    },
  },
  'codex-acp-events-not-rollout': {
    checks: ['load', 'files'],
    why: "codex-acp makes its live updates from Codex's events and its session/load from the rollout's items: live, Codex's warnings come as agent text (\"Model metadata for `lab-model` not found…\"), a reasoning summary part opens with a blank line, a command is titled by what it does (\"List …\", \"Read …\", the command) with its exec events as rawInput / rawOutput, and a call of a tool Codex does not have is not announced, and its plan comes as a plan where the load (0.9.5) and the rollout have the update_plan call; the load titles every command exec_command with the model's arguments and the output the model got, as the rollout keeps it, and marks a command that failed live (exit code 1) completed. With the warnings, blank lines and plans set aside, calls compared by id and the unannounced and update_plan calls left out, the two agree",
    test: (ctx) => {
      if (ctx.tool !== 'codex-acp') return false
      const warning = /^(Model metadata for `[^`]*` not found\. Defaulting to fallback metadata; this can degrade performance and cause issues\.)+/
      const live = asShown(noPlans(withoutEndings(ctx.streamed))).map((m) => ({
        role: m.role,
        chunks: m.chunks
          .map((c) => (c.type === 'text' ? { ...c, text: c.text.replace(warning, '') } : c.type === 'thinking' ? { ...c, text: c.text.replace(/^\n\n/, '') } : c))
          .filter((c) => !(c.type === 'text' && c.text === '')),
      })).filter((m) => m.chunks.length)
      const announced = new Set(live.flatMap((m) => m.chunks.flatMap((c) => (c.type === 'tool-batch' ? c.calls.map((call) => call.id) : []))))
      const stored = noTodoCalls(withoutEndings(ctx.stored)).map((m) => ({
        ...m,
        chunks: m.chunks.map((c) => (c.type === 'tool-batch' ? { ...c, calls: c.calls.filter((call) => announced.has(call.id) || !/^unsupported call: /.test(String(call.result))) } : c)).filter((c) => !(c.type === 'tool-batch' && c.calls.length === 0)),
      }))
      return !messagesDiffer(live, asShown(stored))
    },
  },
  'gemini-acp-load-from-recording': {
    checks: ['load'],
    why: "Gemini CLI announces a command live only in its permission request (titled by the command) and completes it with no content; session/load replays it from its chat recording as a call titled by its tool (\"Shell\"), with the function's response as a user message (\"[Function Response: run_shell_command]\") that cuts the turn in two, and the calls of a turn of several steps together after its first text. With calls compared by id (and, in such a turn, by which were made), and the turn's messages joined, the two agree",
    test: (ctx) => {
      if (ctx.tool !== 'gemini-acp') return false
      const [live, load] = [asShown(withoutEndings(ctx.streamed)), asShown(withoutEndings(ctx.stored))]
      if (!messagesDiffer(live, load)) return true
      // A turn of several steps: the recording replays its calls together, after its first text.
      const texts = (messages) => messages.flatMap((m) => m.chunks.filter((c) => c.type !== 'tool-batch'))
      const calls = (messages) => messages.flatMap((m) => m.chunks.flatMap((c) => (c.type === 'tool-batch' ? c.calls.map((call) => call.id) : []))).sort()
      return !messagesDiffer([{ role: 'assistant', chunks: texts(live) }], [{ role: 'assistant', chunks: texts(load) }]) && JSON.stringify(calls(live)) === JSON.stringify(calls(load))
    },
  },
  'gemini-acp-rejected-call-not-kept': {
    checks: ['load'],
    why: 'Gemini CLI announces a command only in its permission request: when the client rejects it, the live call stays as asked (no update follows), and its chat recording keeps no call, so session/load replays none. With the calls that never got a result set aside, the two agree as gemini-acp-load-from-recording says',
    test: (ctx) => {
      if (ctx.tool !== 'gemini-acp') return false
      const unanswered = (messages) => messages.map((m) => ({ ...m, chunks: m.chunks.map((c) => (c.type === 'tool-batch' ? { ...c, calls: c.calls.filter((call) => call.result !== undefined) } : c)).filter((c) => !(c.type === 'tool-batch' && c.calls.length === 0)) }))
      return !messagesDiffer(asShown(unanswered(withoutEndings(ctx.streamed))), asShown(withoutEndings(ctx.stored)))
    },
  },
  'qwen-acp-permission-title': {
    checks: ['load'],
    why: "Qwen Code's session/request_permission titles a shell call by its command alone (\"echo … (lab command)\"), its tool_call updates and session/load by \"Shell: \" and the command: the client shows the permission's title for the live call, the load shows the other. With that prefix set aside, the two agree",
    test: (ctx) => {
      if (ctx.tool !== 'qwen-acp') return false
      const strip = (messages) => messages.map((m) => ({ role: m.role, chunks: m.chunks.map((c) => (c.type === 'tool-batch' ? { ...c, calls: c.calls.map((call) => ({ ...call, name: call.name.replace(/^Shell: /, '') })) } : c)) }))
      return !messagesDiffer(strip(withoutEndings(ctx.streamed)), strip(withoutEndings(ctx.stored)))
    },
  },
  'qwen-acp-unknown-tool-input': {
    checks: ['load'],
    why: 'Qwen Code announces a call with rawInput {} and sends its arguments only once it runs it: a call it refuses first (a tool it does not have, a relative path its read tool will not take) fails live with no arguments; session/load replays the call with the arguments the model gave. With the arguments of such calls set aside, the two agree',
    test: (ctx) => {
      if (ctx.tool !== 'qwen-acp') return false
      const refused = (call) => call.isError === true && (call.arguments === undefined || JSON.stringify(call.arguments) === '{}')
      const unknown = new Set(ctx.streamed.flatMap((m) => m.chunks.flatMap((c) => (c.type === 'tool-batch' ? c.calls.filter(refused).map((call) => call.id) : []))))
      const strip = (messages) => messages.map((m) => ({ role: m.role, chunks: m.chunks.map((c) => (c.type === 'tool-batch' ? { ...c, calls: c.calls.map(({ arguments: args, ...call }) => (unknown.has(call.id) ? call : { ...call, arguments: args })) } : c)) }))
      return unknown.size > 0 && !messagesDiffer(strip(withoutEndings(ctx.streamed)), strip(withoutEndings(ctx.stored)))
    },
  },
  'pi-notices-beside-messages': {
    checks: ['view'],
    why: "pi's get_messages returns the agent's messages only; the session file's model and thinking-level entries, which we show as system notices, are not among them. With those notices set aside, the two agree",
    test: (ctx) =>
      ctx.family === 'pi' &&
      !messagesDiffer(
        ctx.ours.filter((m) => !(m.role === 'system' && m.chunks.every((c) => c.type === 'system' && /^(model|thinking-level)-changed$/.test(c.kind)))),
        ctx.theirs,
      ),
  },
  'opencode-api-event-requests-only': {
    checks: ['shown', 'reload'],
    why: "OpenCode 1.18.33's experimental /api/event delivers only the durable events published while the HTTP requests are answered (the session, the user's message and its part), none of the turn that follows (Kilo's delivers the whole turn): the stream folds into the user's message as the session has it and no turn of the assistant",
    test: (ctx) => ctx.family === 'opencode' && ctx.stream === 'stream.api.sse' && ctx.streamed.length === 0 && ctx.stored.length > 0 && ctx.userMessages > 0 && ctx.usersAgree,
  },
}

/** The name of the reason that explains a differing `check`, or undefined. */
/**
 * What a check found, settled: put in `out.checks[check]`, a difference with the reason
 * that explains it (read from `ctx` and the check's own `data`, which then goes).
 */
export const settler = (out, ctx) => (check, c) => {
  if (c.result === 'differ') {
    const reason = explain(check, { ...ctx, ...c.data })
    if (reason) c.reason = reason
  }
  delete c.data
  out.checks[check] = c
}

export function explain(check, ctx) {
  for (const [name, reason] of Object.entries(REASONS)) {
    if (!reason.checks.includes(check)) continue
    try {
      if (reason.test(ctx)) return name
    } catch (error) {
      // A test that cannot read this capture's data does not explain it; a name the
      // reasons' own code lacks is a fault of theirs, never a difference left unexplained.
      if (error instanceof ReferenceError) throw error
    }
  }
  return undefined
}
