// Claude Code (`@anthropic-ai/claude-code`): `claude -p --output-format stream-json
// --verbose`, once without and once with `--include-partial-messages` (two sessions of
// the same script), against the lab's Messages endpoint (ANTHROPIC_BASE_URL). Its
// transcripts are under ~/.claude/projects; what Claude Code shows of a stored session is
// read back with the Agent SDK's getSessionMessages where it can be installed.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { install } from '../install.mjs'
import { claudeEnv } from './lab-env.mjs'

const VIEW = fileURLToPath(new URL('./claude-view.mjs', import.meta.url))
const AGENT_SDK = { pkg: '@anthropic-ai/claude-agent-sdk', version: '0.3.332' }

const env = (url, scenario) => ({
  ...claudeEnv(url),
  ...(scenario.compact ? { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' } : {}),
})

export default {
  name: 'claude',
  pkg: '@anthropic-ai/claude-code',
  bin: 'claude',
  sessionRoots: (ctx) => [['projects', join(ctx.home, '.claude', 'projects')]],
  async run(ctx) {
    ctx.env = { ...ctx.env, ...env(ctx.server.url, ctx.scenario) }
    const base = [
      '-p',
      ctx.scenario.prompt,
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
      '--model',
      'claude-sonnet-4-5',
    ]
    const ids = []
    for (const [name, extra] of [
      ['plain', []],
      ['partial', ['--include-partial-messages']],
    ]) {
      const file = name === 'plain' ? 'stream.jsonl' : 'stream.partial.jsonl'
      await ctx.exec(name, ctx.bin, [...base, ...extra], { stdoutName: file })
      const text = readFileSync(join(ctx.out, file), 'utf8')
      const id = text.match(/"session_id":"([^"]+)"/)?.[1]
      if (id) ids.push(id)
    }
    if (ids.length === 0) return { status: 'failed', error: 'no session id in the stream' }
    const sdk = install(AGENT_SDK.pkg, AGENT_SDK.version, '')
    if (!sdk.ok) return { note: `no view: ${sdk.error}` }
    const sdkEntry = join(sdk.dir, 'node_modules', AGENT_SDK.pkg, 'sdk.mjs')
    await ctx.exec('view', process.execPath, [VIEW, sdkEntry, ...ids], { stdoutName: 'resume.sdk-messages.json' })
  },
}
