// Codex as GUIs drive it: `codex app-server` (JSON-RPC lines on stdio, protocol v2, no
// `jsonrpc` field). A session: `initialize` → `initialized` → `thread/start` →
// `turn/start` per prompt, read until `turn/completed`, approvals the server asks answered
// `accept`. The capture keeps the client's log of both directions (`traffic.jsonl`) and the
// server's output alone (`stream.jsonl`); then, each in a fresh process, `thread/read` with
// `includeTurns` (`thread-read.jsonl`, and `resume.app-server.json`, what Codex itself shows
// of the thread) and `thread/resume` (`thread-resume.jsonl`) — the turns Codex's own reducer
// (ThreadHistoryBuilder) builds from the rollout. Versions without the v2 app server answer
// with an error, which is kept as the view.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { lineRpc } from './line-rpc.mjs'
import codex, { codexConfig } from './codex.mjs'
import { INITIALIZE, appServerAsk } from './codex-threads.mjs'

/** The prompts a scenario sends, one turn each. */
const prompts = (scenario) => [scenario.prompt, ...(scenario.followUps ?? [])]

/** One session: the thread started, each prompt a turn; both directions logged. */
function drive(ctx, timeoutMs = 120_000) {
  const queue = prompts(ctx.scenario)
  const turns = queue.length
  let completed = 0
  let threadId
  let next = 10
  let open = false
  const startTurn = (send) => {
    open = true
    const text = queue.shift()
    send({ id: next++, method: 'turn/start', params: { threadId, input: [{ type: 'text', text, text_elements: [] }] } })
  }
  return lineRpc({
    cmd: ctx.bin,
    args: ['app-server'],
    cwd: ctx.work,
    env: ctx.env,
    requests: [{ id: 1, ...INITIALIZE }],
    on: (msg, send) => {
      if (msg.id === 1 && 'result' in msg) {
        send({ method: 'initialized' })
        // The approval policy and sandbox come from config.toml: their spelling in the
        // request changed between versions (dangerFullAccess, danger-full-access).
        send({ id: 2, method: 'thread/start', params: { cwd: ctx.work } })
      } else if (msg.id === 2 && msg.result?.thread?.id) {
        threadId = msg.result.thread.id
        startTurn(send)
      } else if (typeof msg.method === 'string' && msg.id !== undefined && /requestApproval$|^(execCommand|applyPatch)Approval$/.test(msg.method)) {
        send({ id: msg.id, result: { decision: /^(execCommand|applyPatch)Approval$/.test(msg.method) ? 'approved' : 'accept' } })
      } else if ((msg.method === 'turn/completed' || msg.method === 'codex/event/task_complete') && open) {
        // Before turn/completed (0.58), a turn's end was only the v1 event beside the v2 ones.
        open = false
        completed++
        if (queue.length) startTurn(send)
      }
    },
    done: (msg) => completed === turns || (msg.id === 2 && 'error' in msg),
    timeoutMs,
  }).then((r) => ({ ...r, threadId }))
}

export default {
  name: 'codex-app-server',
  pkg: '@openai/codex',
  bin: 'codex',
  sessionRoots: (ctx) => codex.sessionRoots(ctx),
  unsupported: (scenario) => (scenario.abort || scenario.subagent || scenario.compact ? 'not driven through the app server' : undefined),
  async run(ctx) {
    codexConfig(ctx)
    const started = Date.now()
    const r = await drive(ctx)
    const step = { name: 'app-server', cmd: 'codex', args: ['app-server'], ms: Date.now() - started, ...(r.error ? { error: r.error } : {}) }
    ctx.record?.(step)
    writeFileSync(join(ctx.out, 'traffic.jsonl'), r.traffic.map((l) => l + '\n').join(''))
    writeFileSync(join(ctx.out, 'stream.jsonl'), r.stdout)
    writeFileSync(join(ctx.out, 'app-server.stderr'), r.stderr)
    if (!r.threadId) return { status: 'failed', error: `no thread started: ${r.error ?? ''} ${r.stderr.slice(-500)}` }
    ctx.snapshot()
    const read = await appServerAsk(ctx, 'thread/read', { threadId: r.threadId, includeTurns: true })
    const { line: readLine, ...view } = read
    writeFileSync(join(ctx.out, 'resume.app-server.json'), JSON.stringify(view, null, 2) + '\n')
    if (readLine) writeFileSync(join(ctx.out, 'thread-read.jsonl'), readLine + '\n')
    const resumed = await appServerAsk(ctx, 'thread/resume', { threadId: r.threadId })
    if (resumed.line) writeFileSync(join(ctx.out, 'thread-resume.jsonl'), resumed.line + '\n')
    if (!r.answer) return { status: 'failed', error: `the session did not end: ${r.error}` }
  },
}
