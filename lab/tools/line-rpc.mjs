// Speaking a tool's own JSON-lines protocol on stdio: writes request lines, collects every
// line it prints until `done(line)` says the answer came, then ends the process (its own
// group, by id). `on(line, send)` may answer what the tool asks and send more as it goes;
// `traffic` is every line of both directions as written, in order (a client's log).
import { spawn } from 'node:child_process'

/**
 * @param {{ cmd: string, args: string[], cwd: string, env: Record<string,string>, requests: any[], done: (msg: any) => boolean, on?: (msg: any, send: (msg: any) => void) => void, timeoutMs?: number }} o
 * @returns {Promise<{ lines: any[], traffic: string[], stdout: string, answer?: any, error?: string, stderr: string }>}
 */
export function lineRpc(o) {
  return new Promise((resolve) => {
    const child = spawn(o.cmd, o.args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    const lines = []
    const traffic = []
    let stdout = ''
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
      resolve({ lines, traffic, stdout, stderr: stderr.slice(-4000), ...extra })
    }
    const send = (msg) => {
      if (settled) return
      const text = JSON.stringify(msg)
      traffic.push(text)
      child.stdin.write(text + '\n')
    }
    const timer = setTimeout(() => finish({ error: 'timed out' }), o.timeoutMs ?? 30_000)
    child.stdout.on('data', (d) => {
      stdout += d
      buf += d
      let nl
      while (!settled && (nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        traffic.push(line)
        let msg
        try {
          msg = JSON.parse(line)
        } catch {
          lines.push({ text: line })
          continue
        }
        lines.push(msg)
        o.on?.(msg, send)
        if (o.done(msg)) finish({ answer: msg })
      }
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', (e) => finish({ error: String(e) }))
    child.on('close', (code) => finish({ error: `exited ${code}` }))
    for (const r of o.requests) send(r)
  })
}
