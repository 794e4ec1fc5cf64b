// What Codex itself shows of a thread: `codex app-server` (JSON-RPC lines on stdio),
// `initialize`, then `thread/read` with `includeTurns` — the turns its own reducer
// (ThreadHistoryBuilder) builds from the rollout. Versions without the v2 app server
// answer with an error, which is kept as the view.
import { spawn } from 'node:child_process'

export function appServerRead(ctx, threadId, timeoutMs = 30_000) {
  return new Promise((resolve) => {
    const child = spawn(ctx.bin, ['app-server'], { cwd: ctx.work, env: ctx.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    const answers = {}
    let buf = ''
    let stderr = ''
    const finish = (value) => {
      clearTimeout(timer)
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // gone
      }
      resolve(value)
    }
    const timer = setTimeout(() => finish({ error: 'timed out', answers, stderr: stderr.slice(-2000) }), timeoutMs)
    const send = (msg) => child.stdin.write(JSON.stringify(msg) + '\n')
    child.stdout.on('data', (d) => {
      buf += d
      let nl
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        let msg
        try {
          msg = JSON.parse(line)
        } catch {
          continue
        }
        if (msg.id === 1) {
          answers.initialize = msg
          send({ method: 'initialized' })
          send({ id: 2, method: 'thread/read', params: { threadId, includeTurns: true } })
        } else if (msg.id === 2) {
          finish({ request: { method: 'thread/read', params: { threadId, includeTurns: true } }, response: msg })
        }
      }
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', (e) => finish({ error: String(e) }))
    child.on('close', (code) => finish({ error: `app-server exited ${code}`, answers, stderr: stderr.slice(-2000) }))
    send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'agent-chunks-lab', title: 'lab', version: '0.1.0' } } })
  })
}
