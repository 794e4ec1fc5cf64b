// Google's Gemini API (what Gemini CLI speaks, pointed here by GOOGLE_GEMINI_BASE_URL):
// `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (and `:generateContent`), the
// conversation as `contents` of parts, the tools as `functionDeclarations`; a scripted turn
// as `GenerateContentResponse` chunks — thoughts as parts with `thought: true`, calls as
// `functionCall` parts — the last with its `finishReason` and usage.
import { resolveCall } from './script.mjs'
import { SseWriter, deltasOf } from './stream.mjs'

/** `{contents: [{role, parts}], systemInstruction, tools: [{functionDeclarations}]}` as a ModelRequest. */
export function fromGemini(body) {
  const messages = []
  for (const c of body.contents ?? []) {
    const parts = Array.isArray(c.parts) ? c.parts : []
    messages.push({
      role: c.role === 'model' ? 'assistant' : 'user',
      texts: parts.filter((p) => typeof p.text === 'string' && !p.thought).map((p) => p.text),
      calls: parts.filter((p) => p.functionCall).length,
      results: parts.filter((p) => p.functionResponse).length,
    })
  }
  const tools = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((f) => ({ name: f.name, kind: 'function', schema: f.parametersJsonSchema ?? f.parameters }))
  const system = (body.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('\n')
  return { api: 'gemini', model: body.model ?? 'lab-model', stream: !!body.stream, system, tools, messages, body }
}

export async function answerGemini(res, req, turn, ids) {
  const calls = (turn.calls ?? [])
    .map((call, i) => {
      const resolved = resolveCall(call, req)
      return resolved && { ...resolved, id: `call_lab_${ids.n}_${i}` }
    })
    .filter(Boolean)
  const usageMetadata = {
    promptTokenCount: turn.usage?.input ?? 1200,
    candidatesTokenCount: turn.usage?.output ?? 80,
    totalTokenCount: (turn.usage?.input ?? 1200) + (turn.usage?.output ?? 80),
  }
  const chunk = (parts, finishReason) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    ...(finishReason ? { usageMetadata } : {}),
    modelVersion: req.model,
    responseId: `lab-response-${ids.n}`,
  })
  const callParts = calls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.args } }))
  if (!req.stream) {
    const parts = []
    if (turn.thinking) parts.push({ text: turn.thinking.text, thought: true })
    if (turn.text !== undefined) parts.push({ text: deltasOf(turn.text).join('') })
    parts.push(...callParts)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(chunk(parts, 'STOP')))
    return
  }
  const w = new SseWriter(res, { rawSplit: turn.rawSplit, delayMs: turn.delayMs })
  if (turn.thinking) for (const d of deltasOf(turn.thinking.text)) await w.event(null, chunk([{ text: d, thought: true }]))
  if (turn.text !== undefined) {
    for (const d of deltasOf(turn.text, turn.chunk)) await w.event(null, chunk([{ text: d }]))
    if (turn.stall) {
      ids.onStall?.()
      await w.stall()
      return
    }
  }
  await w.event(null, chunk(callParts.length ? callParts : [{ text: '' }], 'STOP'))
  w.end()
}
