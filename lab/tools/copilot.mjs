// GitHub Copilot CLI (`@github/copilot`), in its BYOK mode (1.0.11 on): COPILOT_PROVIDER_*
// point it at the lab, COPILOT_OFFLINE keeps it from GitHub, no sign-in needed. Three
// variants by the wire it speaks: `copilot` (the Responses API, what it uses for GPT-5
// models), `copilot-anthropic` (Messages), `copilot-chat` (chat completions, its default
// provider type). `copilot -p --output-format json` is the live stream; the session is
// ~/.copilot/session-state/<id>/events.jsonl; what Copilot shows of it is read back
// through its SDK (`resumeSession`, `getEvents`, which asks the CLI's `session.getMessages`).
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { install, installNode } from '../install.mjs'

const VIEW = fileURLToPath(new URL('./copilot-view.mjs', import.meta.url))
const SDK = { pkg: '@github/copilot-sdk', version: '1.0.14' }

const WIRES = {
  copilot: { COPILOT_PROVIDER_TYPE: 'openai', COPILOT_PROVIDER_WIRE_API: 'responses', COPILOT_MODEL: 'gpt-5.4' },
  'copilot-anthropic': { COPILOT_PROVIDER_TYPE: 'anthropic', COPILOT_MODEL: 'claude-sonnet-4.5' },
  'copilot-chat': { COPILOT_PROVIDER_TYPE: 'openai', COPILOT_PROVIDER_WIRE_API: 'completions', COPILOT_MODEL: 'gpt-4.1' },
}

function variant(name) {
  return {
    name,
    pkg: '@github/copilot',
    bin: 'copilot',
    // The SQLite session store beside the events files is kept too (an index of sessions).
    sessionRoots: (ctx) => [
      ['session-state', join(ctx.home, '.copilot', 'session-state')],
      // its write-ahead log holds what is not checkpointed yet
      ...['', '-wal', '-shm'].map((x) => [`session-store.db${x}`, join(ctx.home, '.copilot', `session-store.db${x}`)]),
    ],
    async run(ctx) {
      const wire = WIRES[name]
      const url = wire.COPILOT_PROVIDER_TYPE === 'anthropic' ? ctx.server.url : `${ctx.server.url}/v1`
      ctx.env = {
        ...ctx.env,
        ...wire,
        COPILOT_PROVIDER_BASE_URL: url,
        COPILOT_PROVIDER_API_KEY: 'lab-key',
        COPILOT_OFFLINE: 'true',
        ...(ctx.scenario.compact ? { COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '200000' } : {}),
      }
      // Flags come and go between versions: only those its --help lists.
      const help = spawnSync(ctx.bin, ['--help'], { env: ctx.env, encoding: 'utf8', timeout: 60_000 })
      const has = (flag) => `${help.stdout}${help.stderr}`.includes(flag)
      const args = ['-p', ctx.scenario.prompt, '--output-format', 'json', has('--allow-all ') ? '--allow-all' : '--allow-all-tools']
      for (const flag of ['--no-auto-update', '--disable-client-telemetry']) if (has(flag)) args.push(flag)
      args.push('--log-dir', join(ctx.out, 'logs'))
      let step = await ctx.exec('prompt', ctx.bin, args, { stdoutName: 'stream.jsonl' })
      let note
      // Some versions (1.0.0, 1.0.10) refuse a Node older than 24: run them again on a Node
      // from the npm registry.
      const wantsNode = readFileSync(step.stderr, 'utf8').match(/requires Node\.js v(\d+) or higher/)
      if (wantsNode && ctx.server.requests.length === 0) {
        const node = installNode(Number(wantsNode[1]))
        if (node.ok) {
          ctx.env = { ...ctx.env, PATH: `${node.bin}:${ctx.env.PATH}` }
          step = await ctx.exec('prompt-node', ctx.bin, args, { stdoutName: 'stream.jsonl' })
          note = `run on Node ${node.version} from the npm registry (it refuses Node ${process.versions.node})`
        }
      }
      const stream = readFileSync(join(ctx.out, 'stream.jsonl'), 'utf8')
      // Versions without BYOK ask for a GitHub sign-in: their own words are the reason.
      const said = `${stream}\n${readFileSync(step.stderr, 'utf8')}`
      const refusal = said.match(/No authentication information found\.|requires Node\.js v\d+ or higher[^\n]*/)
      if (ctx.server.requests.length === 0 && refusal) return { status: 'unsupported', reason: refusal[0], wholeVersion: true, note }
      ctx.snapshot()
      let ids = []
      try {
        ids = readdirSync(join(ctx.home, '.copilot', 'session-state')).filter((n) => /^[0-9a-f-]{36}$/.test(n))
      } catch {
        return { status: 'failed', error: `no session-state written; stream: ${stream.slice(0, 500)}` }
      }
      if (ctx.scenario.abort || ids.length === 0) return { note }
      const sdk = install(SDK.pkg, SDK.version, '')
      if (!sdk.ok) return { note: `no view: ${sdk.error}` }
      const sdkEntry = join(sdk.dir, 'node_modules', SDK.pkg, 'dist', 'index.js')
      await ctx.exec('view', process.execPath, [VIEW, sdkEntry, ctx.bin, ...ids], { stdoutName: 'resume.sdk-messages.json', timeoutMs: 60_000 })
      return { note }
    },
  }
}

export const copilot = variant('copilot')
export const copilotAnthropic = variant('copilot-anthropic')
export const copilotChat = variant('copilot-chat')
