// What Copilot CLI shows of stored sessions: its SDK resumes each session on the installed
// CLI and asks for its events (`getEvents`, the CLI's session.getMessages). Resuming
// appends a session.resume event to the session's file, so the lab copies the files first.
// Usage: node copilot-view.mjs <sdk index.js path> <copilot bin> <session id>...
import { pathToFileURL } from 'node:url'

const [sdkPath, cliPath, ...ids] = process.argv.slice(2)
const { CopilotClient } = await import(pathToFileURL(sdkPath).href)
const client = new CopilotClient({ cliPath, cwd: process.cwd(), autoStart: true, logLevel: 'error' })
const out = {}
for (const id of ids) {
  try {
    const session = await client.resumeSession(id, { onPermissionRequest: () => ({ kind: 'approved' }) })
    out[id] = await session.getEvents()
    await session.disconnect().catch(() => {})
  } catch (e) {
    out[id] = { error: String(e?.stack ?? e) }
  }
}
await client.stop().catch(() => {})
// Exit only once stdout has taken it all: a pipe's buffer is smaller than a long session.
process.stdout.write(JSON.stringify(out, null, 2) + '\n', () => process.exit(0))
