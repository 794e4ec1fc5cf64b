// Qwen Code (`@qwen-code/qwen-code`): an OpenAI-compatible provider (OPENAI_BASE_URL,
// OPENAI_API_KEY, OPENAI_MODEL, auth type `openai` in ~/.qwen/settings.json), `qwen
// --output-format stream-json` (with and without partial messages) as the live stream,
// its chat recordings under ~/.qwen.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export default {
  name: 'qwen',
  pkg: '@qwen-code/qwen-code',
  bin: 'qwen',
  sessionRoots: (ctx) => [['qwen', join(ctx.home, '.qwen')]],
  async run(ctx) {
    const dir = join(ctx.home, '.qwen')
    mkdirSync(dir, { recursive: true })
    const settings = {
      security: { auth: { selectedType: 'openai' } },
      selectedAuthType: 'openai',
      model: { name: 'lab-model', ...(ctx.scenario.compact ? { chatCompression: { contextPercentageThreshold: 0.5 } } : {}) },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      ui: { hideTips: true },
    }
    writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2))
    ctx.env = {
      ...ctx.env,
      OPENAI_BASE_URL: `${ctx.server.url}/v1`,
      OPENAI_API_KEY: 'lab-key',
      OPENAI_MODEL: 'lab-model',
    }
    const base = [ctx.scenario.prompt, '--output-format', 'stream-json', '--yolo', '--chat-recording']
    await ctx.exec('plain', ctx.bin, base, { stdoutName: 'stream.jsonl' })
    await ctx.exec('partial', ctx.bin, [...base, '--include-partial-messages'], { stdoutName: 'stream.partial.jsonl' })
  },
}
