// Running the agent-chunks command as a user does, and temporary files for it.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))
export const bin = join(root, 'bin', 'agent-chunks.js')
export const example = (name) => join('examples', name)

/**
 * Runs `agent-chunks ...args` in the package root: `{ code, stdout, stderr }`. NO_COLOR
 * and FORCE_COLOR are cleared unless `env` sets them.
 */
export function run(args, { env = {}, input } = {}) {
  const environment = { ...process.env }
  delete environment.NO_COLOR
  delete environment.FORCE_COLOR
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, env: { ...environment, ...env }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }),
    )
    child.stdin.end(input)
  })
}

/** A temporary directory, removed when the process exits; `file(name, text)` writes into it. */
export function scratch() {
  const dir = mkdtempSync(join(tmpdir(), 'agent-chunks-cli-'))
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  return {
    dir,
    path: (name) => join(dir, name),
    file(name, text) {
      const path = join(dir, name)
      writeFileSync(path, text)
      return path
    },
  }
}

/** NDJSON text of `values`. */
export const ndjson = (values) => values.map((value) => `${JSON.stringify(value)}\n`).join('')
