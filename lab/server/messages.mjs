// The Anthropic Messages API (what Claude Code speaks, and Copilot CLI with
// COPILOT_PROVIDER_TYPE=anthropic): a scripted turn as `message_start`,
// `content_block_*`, `message_delta`, `message_stop`, or as one JSON message.
import { resolveCall } from './script.mjs'
import { SseWriter, deltasOf } from './stream.mjs'

/** The content blocks of a turn, with the agent's own tool names. */
export function blocksOf(turn, req, ids) {
  const blocks = []
  if (turn.thinking) {
    blocks.push({
      type: 'thinking',
      thinking: turn.thinking.text,
      signature: turn.thinking.signature ?? `lab-signature-${ids.n}`,
    })
  }
  if (turn.redacted) blocks.push({ type: 'redacted_thinking', data: turn.redacted })
  if (turn.text !== undefined) blocks.push({ type: 'text', text: deltasOf(turn.text).join('') })
  for (const [i, call] of (turn.calls ?? []).entries()) {
    const resolved = resolveCall(call, req)
    if (resolved) blocks.push({ type: 'tool_use', id: `toolu_lab_${ids.n}_${i}`, name: resolved.name, input: resolved.args })
  }
  return blocks
}

export async function answerMessages(res, req, turn, ids) {
  const blocks = blocksOf(turn, req, ids)
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'
  const usage = {
    input_tokens: turn.usage?.input ?? 1200,
    output_tokens: turn.usage?.output ?? 80,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  }
  const message = {
    id: `msg_lab_${ids.n}`,
    type: 'message',
    role: 'assistant',
    model: req.model,
    content: blocks,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  }
  if (!req.stream) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(message))
    return
  }
  const w = new SseWriter(res, { rawSplit: turn.rawSplit, delayMs: turn.delayMs })
  await w.event('message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  })
  await w.event('ping', { type: 'ping' })
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'thinking') {
      await w.event('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      })
      for (const d of deltasOf(turn.thinking.text)) {
        await w.event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: d } })
      }
      await w.event('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: block.signature },
      })
    } else if (block.type === 'redacted_thinking') {
      await w.event('content_block_start', { type: 'content_block_start', index, content_block: block })
    } else if (block.type === 'text') {
      await w.event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
      for (const d of deltasOf(turn.text, turn.chunk)) {
        await w.event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: d } })
      }
      if (turn.stall) {
        ids.onStall?.()
        await w.stall()
        return
      }
    } else if (block.type === 'tool_use') {
      await w.event('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      })
      const json = JSON.stringify(block.input)
      const cut = Math.ceil(json.length / 2)
      for (const part of [json.slice(0, cut), json.slice(cut)]) {
        await w.event('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: part },
        })
      }
    }
    await w.event('content_block_stop', { type: 'content_block_stop', index })
  }
  await w.event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  })
  await w.event('message_stop', { type: 'message_stop' })
  w.end()
}
