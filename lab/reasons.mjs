// Differences the tools themselves make between what they stream, what they store and what
// they show. A comparison of lab/check.mjs that differs gets a reason from this table only
// when the reason's test recognises the difference in the data — most by setting aside what
// the tool is known to do and finding the rest equal — never by the capture's name alone.
// Anything no reason recognises is a difference of ours.
import { codexItems, itemsDiffer, messagesDiffer } from './compare.mjs'

const interrupted = (ctx) => ctx.run?.stalls > 0 || ctx.run?.steps?.some((s) => s.signal === 'SIGINT')
const last = (list) => list[list.length - 1]
const textOnly = (m) => m && m.chunks.every((c) => c.type === 'text')

/** Consecutive assistant messages as one (a stream that names every content block anew). */
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

const withoutResults = (messages) =>
  messages.map((m) => ({ role: m.role, chunks: m.chunks.map((c) => (c.type === 'tool-batch' ? { type: c.type, calls: c.calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) } : c)) }))
const trimmed = (messages) => messages.map((m) => ({ role: m.role, chunks: m.chunks.map((c) => (c.type === 'text' ? { ...c, text: c.text.trimEnd() } : c)) }))

/** Qwen Code's stream and its recording, with what each writes its own way set aside. */
const qwenAgree = (streamed, stored) => !messagesDiffer(trimmed(withoutResults(joinBlocks(streamed))), trimmed(withoutResults(joinBlocks(stored))))

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
  'qwen-stream-blocks': {
    checks: ['reload'],
    why: "Qwen Code's stream-json gives every content block of a response its own message id (Claude Code's share one), so the stream folds into a message per block; its chat recording keeps a tool's result as Qwen's display object ({output} / {error}) where the stream has the text the model was sent, and (0.15.10) the answer's text without its trailing whitespace. With blocks joined, results set aside and text ends trimmed, the two agree",
    test: (ctx) => ctx.family === 'qwen' && qwenAgree(ctx.streamed, ctx.stored),
  },
  'qwen-api-error-not-recorded': {
    checks: ['reload'],
    why: 'Qwen Code streams a model error as the assistant\'s text ("[API Error: …]", 0.24.4 refusing to go on after compaction) and does not record it in the chat file; the rest agrees as qwen-stream-blocks says',
    test: (ctx) => {
      if (ctx.family !== 'qwen') return false
      const end = last(ctx.streamed)
      return textOnly(end) && /^\[API Error: /.test(end.chunks[0]?.text ?? '') && qwenAgree(ctx.streamed.slice(0, -1), ctx.stored)
    },
  },
  'codex-view-without-calls': {
    checks: ['view'],
    why: "Codex 0.138–0.147 do not persist command and sub-agent events in the rollout, so the app server's thread/read shows no calls; we show them from the rollout's function_call items. With our calls set aside, the two agree",
    test: (ctx) => ctx.family === 'codex' && !itemsDiffer(ctx.ours.filter((i) => i.type !== 'call'), ctx.theirs.filter((i) => i.type !== 'call')) && ctx.theirs.every((i) => i.type !== 'call'),
  },
  'codex-view-without-unknown-tool': {
    checks: ['view'],
    why: 'a call of a tool that does not exist gets a function_call and an "unsupported call" output in the rollout but no item event, so Codex shows nothing of it; we show the failed call',
    test: (ctx) => ctx.family === 'codex' && !itemsDiffer(ctx.ours.filter((i) => !(i.type === 'call' && /^unsupported call: /.test(String(i.output)))), ctx.theirs),
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
export function explain(check, ctx) {
  for (const [name, reason] of Object.entries(REASONS)) {
    if (!reason.checks.includes(check)) continue
    try {
      if (reason.test(ctx)) return name
    } catch {
      // a test that cannot read this capture's data does not explain it
    }
  }
  return undefined
}
