// What Claude Code shows of stored sessions: the Agent SDK's getSessionMessages, run as a
// child process with the run's HOME (so the SDK reads that home's ~/.claude) and the run's
// folder as its cwd. Usage: node claude-view.mjs <sdk.mjs path> <session id>...
import { pathToFileURL } from 'node:url'

const [sdkPath, ...ids] = process.argv.slice(2)
const { getSessionMessages } = await import(pathToFileURL(sdkPath).href)
const out = {}
for (const id of ids) {
  try {
    out[id] = await getSessionMessages(id, { dir: process.cwd() })
  } catch (e) {
    out[id] = { error: String(e?.stack ?? e) }
  }
}
console.log(JSON.stringify(out, null, 2))
