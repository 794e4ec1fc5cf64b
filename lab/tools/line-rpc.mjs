// Asking a tool's own JSON-lines protocol on stdio for what it shows: writes request
// lines, collects every line it prints until `done(line)` says the answer came, then ends
// the process (its own group, by id).
import { spawn } from 'node:child_process'

/**
 * @param {{ cmd: string, args: string[], cwd: string, env: Record<string,string>, requests: any[], done: (msg: any) => boolean, timeoutMs?: number }} o
 * @returns {Promise<{ lines: any[], answer?: any, error?: string, stderr: string }>}
 */
export function lineRpc(o) {
  return new Promise((resolve) => {
    const child = spawn(o.cmd, o.args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    const lines = []
    let buf = ''
    let stderr = ''
    let settled = false
    const finish = (extra) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // gone
      }
      resolve({ lines, stderr: stderr.slice(-4000), ...extra })
    }
    const timer = setTimeout(() => finish({ error: 'timed out' }), o.timeoutMs ?? 30_000)
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
          lines.push({ text: line })
          continue
        }
        lines.push(msg)
        if (o.done(msg)) finish({ answer: msg })
      }
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', (e) => finish({ error: String(e) }))
    child.on('close', (code) => finish({ error: `exited ${code}` }))
    for (const r of o.requests) child.stdin.write(JSON.stringify(r) + '\n')
  })
}
