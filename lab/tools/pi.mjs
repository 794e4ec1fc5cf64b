// pi (`@mariozechner/pi-coding-agent`): a custom provider in ~/.pi/agent/models.json
// pointing at the lab's chat completions, `pi -p --mode json` as the live stream, session
// files under ~/.pi/agent/sessions. What pi shows of a stored session: its RPC mode
// (`--mode rpc --session FILE`) answering `get_messages`.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { lineRpc } from './line-rpc.mjs'

function findJsonl(dir, out = []) {
  let entries = []
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return out
  }
  for (const e of entries) {
    if (e.isDirectory()) findJsonl(join(dir, e.name), out)
    else if (e.name.endsWith('.jsonl')) out.push(join(dir, e.name))
  }
  return out
}

export default {
  name: 'pi',
  pkg: '@mariozechner/pi-coding-agent',
  bin: 'pi',
  unsupported: (scenario) => (scenario.subagent ? 'pi has no sub-agent tool' : null),
  sessionRoots: (ctx) => [['sessions', join(ctx.home, '.pi', 'agent', 'sessions')]],
  async run(ctx) {
    const agentDir = join(ctx.home, '.pi', 'agent')
    mkdirSync(agentDir, { recursive: true })
    const models = {
      providers: {
        lab: {
          baseUrl: `${ctx.server.url}/v1`,
          api: 'openai-completions',
          apiKey: 'lab-key',
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          // Older pi (0.37) takes a model only with every field given.
          models: [
            {
              id: 'lab-model',
              name: 'Lab',
              reasoning: true,
              input: ['text'],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow: 200000,
              maxTokens: 16384,
            },
          ],
        },
      },
    }
    writeFileSync(join(agentDir, 'models.json'), JSON.stringify(models, null, 2))
    writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ quietStartup: true, retry: { enabled: false } }, null, 2))
    ctx.env = { ...ctx.env, PI_OFFLINE: '1' }
    const common = ['--provider', 'lab', '--model', 'lab-model', '--offline']
    await ctx.exec('prompt', ctx.bin, [...common, '--mode', 'json', '-p', ctx.scenario.prompt], { stdoutName: 'stream.jsonl' })
    ctx.snapshot()
    const files = findJsonl(join(agentDir, 'sessions'))
    if (ctx.scenario.abort) {
      // pi writes its session file once the first assistant message ends.
      return files.length ? undefined : { note: 'stopped mid-stream, pi wrote no session file (it writes one once a message ends)' }
    }
    if (files.length === 0) return { status: 'failed', error: 'no session file written' }
    const view = await lineRpc({
      cmd: ctx.bin,
      args: [...common, '--mode', 'rpc', '--session', files[0]],
      cwd: ctx.work,
      env: ctx.env,
      requests: [{ id: 'view', type: 'get_messages' }],
      done: (m) => m.type === 'response' && m.command === 'get_messages',
    })
    writeFileSync(join(ctx.out, 'resume.rpc-get_messages.json'), JSON.stringify(view, null, 2) + '\n')
  },
}
