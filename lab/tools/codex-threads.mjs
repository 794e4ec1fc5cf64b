// Asking a fresh `codex app-server` about a thread it keeps (`thread/read`, `thread/resume`):
// what Codex itself shows of a stored thread, for the Codex adapters of the lab.
import { lineRpc } from './line-rpc.mjs'

export const INITIALIZE = { method: 'initialize', params: { clientInfo: { name: 'agent-chunks-lab', title: 'lab', version: '0.1.0' }, capabilities: null } }

/** Asks a fresh app server one question about a thread (`thread/read`, `thread/resume`). */
export async function appServerAsk(ctx, method, params, timeoutMs = 30_000) {
  const request = { id: 2, method, params }
  let asked = false
  const r = await lineRpc({
    cmd: ctx.bin,
    args: ['app-server'],
    cwd: ctx.work,
    env: ctx.env,
    requests: [{ id: 1, ...INITIALIZE }],
    on: (msg, send) => {
      if (msg.id === 1 && !asked && ('result' in msg || 'error' in msg)) {
        asked = true
        send({ method: 'initialized' })
        send(request)
      }
    },
    done: (msg) => msg.id === 2 && ('result' in msg || 'error' in msg),
    timeoutMs,
  })
  return { request: { method, params }, response: r.answer, ...(r.answer ? {} : { error: r.error, stderr: r.stderr }), line: r.traffic.at(-1) }
}

/** What Codex itself shows of a thread: `thread/read` with its turns. */
export async function appServerRead(ctx, threadId) {
  const { line, ...view } = await appServerAsk(ctx, 'thread/read', { threadId, includeTurns: true })
  return view
}
