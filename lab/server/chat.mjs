// OpenAI chat completions (what pi, Qwen Code and Copilot CLI's default provider type
// speak): a scripted turn as `chat.completion.chunk` lines — `reasoning_content` for
// thinking, `tool_calls` deltas by index — closed by `data: [DONE]`.
import { resolveCall } from './script.mjs'
import { SseWriter, deltasOf } from './stream.mjs'

export async function answerChat(res, req, turn, ids) {
  const id = `chatcmpl_lab_${ids.n}`
  const created = Math.floor(Date.now() / 1000)
  const calls = (turn.calls ?? [])
    .map((call, i) => {
      const resolved = resolveCall(call, req)
      return resolved && { ...resolved, id: `call_lab_${ids.n}_${i}` }
    })
    .filter(Boolean)
  const finish = calls.length ? 'tool_calls' : 'stop'
  const usage = {
    prompt_tokens: turn.usage?.input ?? 1200,
    completion_tokens: turn.usage?.output ?? 80,
    total_tokens: (turn.usage?.input ?? 1200) + (turn.usage?.output ?? 80),
  }
  if (!req.stream) {
    const message = { role: 'assistant', content: turn.text === undefined ? null : deltasOf(turn.text).join('') }
    if (turn.thinking) message.reasoning_content = turn.thinking.text
    if (calls.length) {
      message.tool_calls = calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.args) },
      }))
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model: req.model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    )
    return
  }
  const w = new SseWriter(res, { rawSplit: turn.rawSplit, delayMs: turn.delayMs })
  const chunk = (delta, finish_reason = null) =>
    w.event(null, { id, object: 'chat.completion.chunk', created, model: req.model, choices: [{ index: 0, delta, finish_reason }] })
  await chunk({ role: 'assistant', content: '' })
  if (turn.thinking) {
    for (const d of deltasOf(turn.thinking.text)) await chunk({ reasoning_content: d })
  }
  if (turn.text !== undefined) {
    for (const d of deltasOf(turn.text, turn.chunk)) await chunk({ content: d })
    if (turn.stall) {
      ids.onStall?.()
      await w.stall()
      return
    }
  }
  for (const [index, c] of calls.entries()) {
    const json = JSON.stringify(c.args)
    const cut = Math.ceil(json.length / 2)
    await chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: json.slice(0, cut) } }] })
    await chunk({ tool_calls: [{ index, function: { arguments: json.slice(cut) } }] })
  }
  await chunk({}, finish)
  if (req.body.stream_options?.include_usage) {
    await w.event(null, { id, object: 'chat.completion.chunk', created, model: req.model, choices: [], usage })
  }
  await w.event(null, '[DONE]')
  w.end()
}
