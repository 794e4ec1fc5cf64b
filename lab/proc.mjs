// Running an agent as a child process: stdout and stderr to files, a time limit, and a
// stop (SIGINT, then SIGKILL to its process group) the lab can call when the scripted
// stream stalls. Only the processes the lab started are signalled, by their own ids.
import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'

/**
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd: string, env: Record<string,string>, stdout: string, stderr: string, stdin?: string, timeoutMs?: number }} o
 * @returns {{ done: Promise<{ code: number|null, signal: string|null, ms: number, timedOut: boolean }>, stop: (graceMs?: number) => void, pid: number }}
 */
export function launch(cmd, args, o) {
  const started = Date.now()
  const child = spawn(cmd, args, {
    cwd: o.cwd,
    env: o.env,
    stdio: [o.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached: true,
  })
  const out = createWriteStream(o.stdout)
  const err = createWriteStream(o.stderr)
  child.stdout.pipe(out)
  child.stderr.pipe(err)
  // 'open': a pipe never closed, for CLIs that take the end of their input as a signal.
  if (o.stdin !== undefined && o.stdin !== 'open' && child.stdin) child.stdin.end(o.stdin)
  child.stdin?.on('error', () => {})
  let timedOut = false
  const signal = (sig) => {
    try {
      if (child.pid) process.kill(-child.pid, sig)
    } catch {
      // already gone
    }
  }
  const timer = setTimeout(() => {
    timedOut = true
    signal('SIGKILL')
  }, o.timeoutMs ?? 180_000)
  const done = new Promise((resolve) => {
    child.on('close', (code, sig) => {
      clearTimeout(timer)
      // The group may still hold children the agent left behind (a shell it spawned).
      signal('SIGKILL')
      Promise.all([new Promise((r) => out.end(r)), new Promise((r) => err.end(r))]).then(() =>
        resolve({ code, signal: sig, ms: Date.now() - started, timedOut }),
      )
    })
    child.on('error', (e) => {
      clearTimeout(timer)
      err.write(String(e))
      resolve({ code: null, signal: null, ms: Date.now() - started, timedOut })
    })
  })
  const stop = (graceMs = 5000) => {
    signal('SIGINT')
    setTimeout(() => signal('SIGKILL'), graceMs).unref()
  }
  return { done, stop, pid: child.pid ?? 0 }
}
