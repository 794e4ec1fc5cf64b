// The OpenAI Responses API (what Codex speaks with `wire_api = "responses"`, and Copilot
// CLI with COPILOT_PROVIDER_WIRE_API=responses): a scripted turn as `response.*` events —
// reasoning items with summaries and encrypted content, assistant messages, function
// calls — closed by `response.completed`.
import { resolveCall } from './script.mjs'
import { SseWriter, deltasOf } from './stream.mjs'

export async function answerResponses(res, req, turn, ids) {
  const responseId = `resp_lab_${ids.n}`
  const usage = {
    input_tokens: turn.usage?.input ?? 1200,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: turn.usage?.output ?? 80,
    output_tokens_details: { reasoning_tokens: turn.thinking ? 40 : 0 },
    total_tokens: (turn.usage?.input ?? 1200) + (turn.usage?.output ?? 80),
  }
  const base = { id: responseId, object: 'response', created_at: Math.floor(Date.now() / 1000), model: req.model }
  const output = []
  const w = new SseWriter(res, { rawSplit: turn.rawSplit, delayMs: turn.delayMs })
  let seq = 0
  const ev = (type, data) => w.event(type, { type, sequence_number: seq++, ...data })
  await ev('response.created', { response: { ...base, status: 'in_progress', output: [] } })
  await ev('response.in_progress', { response: { ...base, status: 'in_progress', output: [] } })

  if (turn.thinking) {
    const output_index = output.length
    const id = `rs_lab_${ids.n}`
    const summaries = Array.isArray(turn.thinking.summary) ? turn.thinking.summary : [turn.thinking.text]
    await ev('response.output_item.added', { output_index, item: { id, type: 'reasoning', summary: [] } })
    for (const [summary_index, text] of summaries.entries()) {
      await ev('response.reasoning_summary_part.added', {
        item_id: id,
        output_index,
        summary_index,
        part: { type: 'summary_text', text: '' },
      })
      for (const delta of deltasOf(text)) {
        await ev('response.reasoning_summary_text.delta', { item_id: id, output_index, summary_index, delta })
      }
      await ev('response.reasoning_summary_text.done', { item_id: id, output_index, summary_index, text })
      await ev('response.reasoning_summary_part.done', {
        item_id: id,
        output_index,
        summary_index,
        part: { type: 'summary_text', text },
      })
    }
    const item = {
      id,
      type: 'reasoning',
      summary: summaries.map((text) => ({ type: 'summary_text', text })),
      encrypted_content: turn.thinking.encrypted ?? Buffer.from(`lab-encrypted-${ids.n}`).toString('base64'),
    }
    if (turn.thinking.raw) {
      item.content = [{ type: 'reasoning_text', text: turn.thinking.raw }]
      for (const delta of deltasOf(turn.thinking.raw)) {
        await ev('response.reasoning_text.delta', { item_id: id, output_index, content_index: 0, delta })
      }
    }
    await ev('response.output_item.done', { output_index, item })
    output.push(item)
  }

  if (turn.text !== undefined) {
    const output_index = output.length
    const id = `msg_lab_${ids.n}`
    await ev('response.output_item.added', {
      output_index,
      item: { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
    })
    await ev('response.content_part.added', {
      item_id: id,
      output_index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    })
    for (const delta of deltasOf(turn.text, turn.chunk)) {
      await ev('response.output_text.delta', { item_id: id, output_index, content_index: 0, delta })
    }
    if (turn.stall) {
      ids.onStall?.()
      await w.stall()
      return
    }
    const text = deltasOf(turn.text).join('')
    const part = { type: 'output_text', text, annotations: [] }
    await ev('response.output_text.done', { item_id: id, output_index, content_index: 0, text })
    await ev('response.content_part.done', { item_id: id, output_index, content_index: 0, part })
    const item = { id, type: 'message', role: 'assistant', status: 'completed', content: [part] }
    await ev('response.output_item.done', { output_index, item })
    output.push(item)
  }

  for (const [i, call] of (turn.calls ?? []).entries()) {
    const output_index = output.length
    const resolved = resolveCall(call, req)
    if (!resolved) continue
    const { name, args, kind, namespace } = resolved
    const ns = namespace ? { namespace } : {}
    const id = `fc_lab_${ids.n}_${i}`
    const call_id = `call_lab_${ids.n}_${i}`
    let item
    if (kind === 'local_shell') {
      item = { id, type: 'local_shell_call', call_id, status: 'completed', action: { type: 'exec', command: args.command, env: {} } }
      await ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress' } })
    } else {
      const json = JSON.stringify(args)
      await ev('response.output_item.added', {
        output_index,
        item: { id, type: 'function_call', call_id, name, ...ns, arguments: '', status: 'in_progress' },
      })
      const cut = Math.ceil(json.length / 2)
      for (const delta of [json.slice(0, cut), json.slice(cut)]) {
        await ev('response.function_call_arguments.delta', { item_id: id, output_index, delta })
      }
      await ev('response.function_call_arguments.done', { item_id: id, output_index, arguments: json })
      item = { id, type: 'function_call', call_id, name, ...ns, arguments: json, status: 'completed' }
    }
    await ev('response.output_item.done', { output_index, item })
    output.push(item)
  }

  await ev('response.completed', { response: { ...base, status: 'completed', output, usage } })
  w.end()
  return { responseId, output }
}
