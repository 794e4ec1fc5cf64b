/**
 * One assistant turn as the AI SDK streams it to `useChat`: UI message stream chunks in
 * the shapes `toUIMessageStream` writes (steps of reasoning, text and tool calls with
 * results), the same turn as agent events, and helpers that frame it as SSE.
 */
import { createRng } from '../__test__/random-streams.mjs'

const WORDS = ['the ', 'file ', 'function ', 'returns ', 'a ', 'value', '. ', ', ', '\n', 'é', '✓ ', '😀', 'test ', 'build ']

function delta(rng) {
  const length = rng.between(3, 24)
  let text = ''
  while (text.length < length) text += rng.pick(WORDS)
  return text.slice(0, length)
}

/**
 * About `events` chunks with `calls` tool calls: each step has reasoning (its signature
 * on `reasoning-end`), text, then two calls streamed as partial JSON and their results.
 */
export function uiMessageTurn({ seed = 1, events = 20_000, calls = 140 } = {}) {
  const rng = createRng(seed)
  const steps = Math.max(1, Math.ceil(calls / 2))
  const perStepDeltas = Math.max(2, Math.floor((events - calls * 5 - steps * 8) / steps))
  const chunks = [{ type: 'start', messageId: `msg-${seed}` }]
  let made = 0
  for (let step = 0; step < steps; step++) {
    chunks.push({ type: 'start-step' })
    const reasoning = Math.floor(perStepDeltas * 0.2)
    chunks.push({ type: 'reasoning-start', id: `r${step}` })
    for (let i = 0; i < reasoning; i++) chunks.push({ type: 'reasoning-delta', id: `r${step}`, delta: delta(rng) })
    chunks.push({ type: 'reasoning-end', id: `r${step}`, providerMetadata: { anthropic: { signature: `sig-${step}-${'s'.repeat(64)}` } } })
    chunks.push({ type: 'text-start', id: `t${step}` })
    for (let i = reasoning; i < perStepDeltas; i++) chunks.push({ type: 'text-delta', id: `t${step}`, delta: delta(rng) })
    chunks.push({ type: 'text-end', id: `t${step}` })
    for (let c = 0; c < 2 && made < calls; c++, made++) {
      const toolCallId = `call_${step}_${c}`
      const toolName = rng.pick(['bash', 'read_file', 'edit_file'])
      const input = { command: 'npm test -- --grep chunks', path: `src/file${c}.ts` }
      const json = JSON.stringify(input)
      chunks.push({ type: 'tool-input-start', toolCallId, toolName })
      chunks.push({ type: 'tool-input-delta', toolCallId, inputTextDelta: json.slice(0, 20) })
      chunks.push({ type: 'tool-input-delta', toolCallId, inputTextDelta: json.slice(20) })
      chunks.push({ type: 'tool-input-available', toolCallId, toolName, input })
      chunks.push({ type: 'tool-output-available', toolCallId, output: { exitCode: 0, stdout: `ok ${step}.${c}\n`.repeat(3) } })
    }
    chunks.push({ type: 'finish-step' })
  }
  chunks.push({ type: 'finish', finishReason: 'stop' })
  return chunks
}

/** One message of `count` text deltas. */
export function textOnlyTurn({ seed = 2, count = 20_000 } = {}) {
  const rng = createRng(seed)
  const chunks = [{ type: 'start', messageId: `msg-text-${seed}` }, { type: 'start-step' }, { type: 'text-start', id: 't' }]
  for (let i = 0; i < count; i++) chunks.push({ type: 'text-delta', id: 't', delta: delta(rng) })
  chunks.push({ type: 'text-end', id: 't' }, { type: 'finish-step' }, { type: 'finish', finishReason: 'stop' })
  return chunks
}

/** The chunks as the SSE text `JsonToSseTransformStream` writes. */
export function sseText(chunks) {
  let text = ''
  for (const chunk of chunks) text += `data: ${JSON.stringify(chunk)}\n\n`
  return text + 'data: [DONE]\n\n'
}

/** A stream of `bytes` in pieces of about `size` bytes, as a response body arrives. */
export function byteStream(bytes, size = 16 * 1024) {
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      controller.enqueue(bytes.subarray(at, at + size))
      at += size
    },
  })
}

/** A stream of the chunk objects. */
export function chunkStream(chunks) {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
}
