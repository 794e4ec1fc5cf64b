// A backend serving `useChat` from a recorded agent stream, as docs/live.md tells one to:
// the recording is pushed into a `Conversation` in random pieces (cut anywhere, inside a
// UTF-8 character too) and `toUIMessageStream()` is written after every push. Used by
// `__test__/usechat.test.mjs` in its own process and by `worker.mjs` in child processes
// (the server killed mid-stream, and the one that takes over).
import { Conversation } from 'agent-chunks'
import { createRng } from '../random-streams.mjs'

/** The stream recordings of every stream format (examples and fixtures). */
export const RECORDINGS = [
  'examples/acp-session.ndjson',
  'examples/acp-v1-load.ndjson',
  'examples/ag-ui-stream.sse',
  'examples/agent-session.sse',
  'examples/ai-sdk-stream.sse',
  'examples/claude-code-stream.ndjson',
  'examples/claude-code-stream.partial.ndjson',
  'examples/codex-exec.jsonl',
  'examples/copilot-session.stream.ndjson',
  'examples/demo-stream.ndjson',
  'examples/openclaw-gateway.ndjson',
  'examples/opencode-events.sse',
  'examples/opencode-global.sse',
  'examples/opencode-run.jsonl',
  'examples/pi-events.ndjson',
  'examples/pi-session.stream.ndjson',
  'examples/sn-thinking.sse',
  '__test__/fixtures/acp-agent-stdout.ndjson',
  '__test__/fixtures/acp-client-traffic.jsonl',
  '__test__/fixtures/acp-late-names.ndjson',
  '__test__/fixtures/openclaw-gateway-2026-9.ndjson',
  '__test__/fixtures/openclaw-webchat-edges.ndjson',
  '__test__/fixtures/pi-drift.stream.ndjson',
  '__test__/fixtures/pi-events-084.ndjson',
  '__test__/fixtures/pi-lost-updates.events.ndjson',
  '__test__/fixtures/pi-unannounced.events.ndjson',
  '__test__/fixtures/sn-server.sse',
]

/** A recording cut into its frames (NDJSON lines, SSE frames), each with its line break(s). */
export function framesOf(bytes) {
  const text = bytes.toString('latin1') // one char per byte: offsets are byte offsets
  const sse = /^(data|event|id|retry):|^:/.test(text.trimStart().split('\n')[0])
  const frames = []
  const boundary = sse ? /\r?\n\r?\n/g : /\n/g
  let at = 0
  for (const match of text.matchAll(boundary)) {
    const end = match.index + match[0].length
    frames.push(bytes.subarray(at, end))
    at = end
  }
  if (at < bytes.length) frames.push(bytes.subarray(at))
  return frames
}

/**
 * The recording's user turns, as a chat app meets them: a turn begins at the frame that
 * adds a message which is not the assistant's (the user's prompt the agent echoes, a
 * notice), which the client holds itself and sends; the frames before the first such
 * message are a turn without one. Each turn's bytes are what the backend pushes while it
 * answers that request.
 */
export function turnsOf(bytes, format) {
  const live = new Conversation({ format })
  const turns = [{ opens: [], frames: [] }]
  for (const frame of framesOf(bytes)) {
    let added = []
    try {
      ;({ added } = live.push(frame))
    } catch {
      // A frame the format refuses stays in the recording (and is refused live too).
    }
    const opens = added.filter((i) => live.messages[i].role !== 'assistant')
    if (opens.length > 0) turns.push({ opens, frames: [] })
    turns.at(-1).frames.push(frame)
  }
  live.end()
  return turns
    .filter((turn, k) => k > 0 || turn.frames.length > 0)
    .map(({ opens, frames }) => ({ opens, bytes: Buffer.concat(frames) }))
}

/** `bytes` in random pieces: mostly small, some large, and cuts inside multi-byte characters. */
export function pieces(bytes, rng) {
  const cuts = new Set()
  let at = 0
  while (at < bytes.length) {
    at += rng.weighted([[6, () => rng.between(1, 24)], [3, () => rng.between(25, 400)], [1, () => rng.between(401, 4000)]])()
    cuts.add(Math.min(at, bytes.length))
  }
  // A few cuts right after the first byte of a multi-byte character.
  for (let i = 0, n = 0; i < bytes.length && n < 4; i++) {
    if (bytes[i] >= 0xc0 && rng.chance(0.3)) {
      cuts.add(i + 1)
      n++
    }
  }
  const out = []
  let from = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut > from) out.push(bytes.subarray(from, cut))
    from = cut
  }
  return out
}

export const seeded = (seed) => createRng(seed)

/** Let the response go out in its own TCP segments now and then. */
export const breathe = (rng) => (rng.chance(0.15) ? new Promise((resolve) => setTimeout(resolve, rng.int(3))) : Promise.resolve())

/**
 * Plays `bytes` into `live`: after each piece pushed, the UI message stream written so
 * far goes to `write` (and `after(consumed)` is told how many bytes are in); `end` closes
 * the response when the pieces are done.
 */
export async function play(live, bytes, rng, { write, after = () => true, end = true, first = '' }) {
  let consumed = 0
  if (first) write(first)
  for (const piece of pieces(bytes, rng)) {
    try {
      live.push(piece)
    } catch {
      // A frame the format refuses: the recording read whole refuses it too.
    }
    consumed += piece.length
    write(live.toUIMessageStream())
    if (!(await after(consumed))) return consumed
    await breathe(rng)
  }
  if (end) {
    live.end()
    write(live.toUIMessageStream())
  }
  return consumed
}

/** What a backend keeps to go on in another process: messages and resume state, as JSON. */
export const keep = (live) => JSON.parse(JSON.stringify({ messages: live.messages, resume: live.resume }))
