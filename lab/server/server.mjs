// The lab's scripted model server on 127.0.0.1: the Responses API, the Messages API and
// chat completions on one port, each request answered by the scenario's script and logged
// (method, path, body, which rule answered) to a JSONL file of the capture.
import { appendFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { answerChat } from './chat.mjs'
import { answerGemini, fromGemini } from './gemini.mjs'
import { answerMessages } from './messages.mjs'
import { fromChat, fromMessages, fromResponses } from './request.mjs'
import { answerResponses } from './responses.mjs'
import { chooseTurn } from './script.mjs'

const ROUTES = [
  { path: /\/responses$/, parse: fromResponses, answer: answerResponses },
  { path: /\/messages$/, parse: fromMessages, answer: answerMessages },
  { path: /\/chat\/completions$/, parse: fromChat, answer: answerChat },
  // Gemini: the model and the method are in the path (`models/<model>:streamGenerateContent`).
  { path: /:(stream)?[gG]enerateContent$/, parse: fromGemini, answer: answerGemini },
]

const MODELS = ['lab-model', 'o4-mini', 'gpt-5-codex', 'claude-sonnet-4-5', 'claude-haiku-4-5']

/**
 * @param {{ scenario: any, log?: string, onStall?: () => void }} options
 * @returns {Promise<{ port: number, url: string, close: () => Promise<void>, requests: any[] }>}
 */
export async function startServer({ scenario, log, onStall }) {
  const requests = []
  const stored = new Map()
  let n = 0
  const record = (entry) => {
    requests.push(entry)
    if (log) appendFileSync(log, JSON.stringify(entry) + '\n')
  }
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const chunks = []
    for await (const c of req) chunks.push(c)
    const raw = Buffer.concat(chunks).toString('utf8')
    const entry = { at: new Date().toISOString(), method: req.method, path: url.pathname + url.search, headers: safeHeaders(req.headers) }
    try {
      if (req.method === 'HEAD' || (req.method === 'GET' && url.pathname === '/')) {
        record({ ...entry, rule: 'probe' })
        res.writeHead(200).end()
        return
      }
      if (req.method === 'GET' && /\/models$/.test(url.pathname)) {
        record({ ...entry, rule: 'models' })
        const data = MODELS.map((id) => ({ id, object: 'model', created: 0, owned_by: 'lab', type: 'model', display_name: id }))
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, has_more: false }))
        return
      }
      if (req.method === 'POST' && /count_?tokens$/i.test(url.pathname)) {
        record({ ...entry, rule: 'count_tokens' })
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 1200, totalTokens: 1200 }))
        return
      }
      const route = req.method === 'POST' ? ROUTES.find((r) => r.path.test(url.pathname)) : undefined
      if (!route) {
        record({ ...entry, rule: 'unknown', body: raw.slice(0, 2000) })
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not in the lab' } }))
        return
      }
      let body = JSON.parse(raw || '{}')
      const gemini = /\/models\/([^/:]+):(stream)?[gG]enerateContent$/.exec(url.pathname)
      if (gemini) body = { ...body, model: decodeURIComponent(gemini[1]), stream: !!gemini[2] }
      // The Responses API keeps conversations on the server: a request may name the
      // previous response and send only what is new (Codex's TypeScript CLI does).
      if (body.previous_response_id && stored.has(body.previous_response_id)) {
        const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input ?? [])
        body = { ...body, input: [...stored.get(body.previous_response_id), ...input] }
      }
      const parsed = route.parse(body)
      const choice = chooseTurn(parsed, scenario)
      const ids = { n: ++n, onStall }
      record({ ...entry, n: ids.n, rule: choice.rule, script: choice.script, step: choice.step, tools: parsed.tools.map((t) => t.name), body })
      if (choice.turn?.error) {
        // A refused request, in a shape both the OpenAI and the Anthropic clients read.
        const { status, message } = choice.turn.error
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message, code: null } }))
        return
      }
      if (choice.turn?.httpStatus) {
        // A model server that fails: the status and an error body, no stream.
        res.writeHead(choice.turn.httpStatus, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: `lab: HTTP ${choice.turn.httpStatus}`, type: 'server_error' } }))
        return
      }
      const answered = await route.answer(res, parsed, choice.turn, ids)
      if (answered?.responseId && Array.isArray(parsed.body.input)) stored.set(answered.responseId, [...parsed.body.input, ...answered.output])
    } catch (error) {
      record({ ...entry, rule: 'error', error: String(error?.stack ?? error) })
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: String(error) } }))
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.()
        server.close(() => resolve())
      }),
  }
}

function safeHeaders(headers) {
  const out = { ...headers }
  for (const k of ['authorization', 'x-api-key', 'api-key']) if (k in out) out[k] = '(set)'
  return out
}
