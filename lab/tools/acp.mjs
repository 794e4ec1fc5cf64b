// The ACP agents: each started on stdio by the lab's ACP client (acp-client.mjs, on the
// protocol's SDK), pointed at the lab's server the way the agent itself is configured, run
// through a scenario (`live.ndjson`: the traffic both ways), then the same session loaded
// by a fresh client and a fresh agent process (`load.ndjson`). The agent's own files are
// kept as for its CLI: Claude Code's transcripts, Codex's rollouts, Qwen Code's chat
// recordings, OpenCode's and Kilo's databases.
import { mkdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { claudeEnv, codexProvider } from './lab-env.mjs'

const CLIENT = fileURLToPath(new URL('./acp-client.mjs', import.meta.url))

/**
 * Codex's config: the lab as a Responses-API provider; commands run without its sandbox
 * (bubblewrap is not here), and any command it does not trust is asked of the client.
 * A model it knows, so that it sends no warning about unknown model metadata as text.
 */
const codexConfig = (url) =>
  [
    'model = "gpt-5-codex"',
    'model_provider = "mock"',
    'approval_policy = "untrusted"',
    'sandbox_mode = "danger-full-access"',
    'model_reasoning_summary = "detailed"',
    'show_raw_agent_reasoning = true',
    'model_context_window = 200000',
    'check_for_update_on_startup = false',
    '',
    ...codexProvider('mock', url),
  ].join('\n')

/** OpenCode's and Kilo's provider: the lab's chat completions (opencode.md, sections 0 and 7). */
const opencodeConfig = (url, ask) => ({
  $schema: 'https://opencode.ai/config.json',
  provider: {
    mock: {
      npm: '@ai-sdk/openai-compatible',
      name: 'mock',
      options: { baseURL: `${url}/v1`, apiKey: 'sk-mock' },
      models: { 'lab-model': { name: 'lab-model', tool_call: true, reasoning: true, limit: { context: 200000, output: 8000 } } },
    },
  },
  model: 'mock/lab-model',
  small_model: 'mock/lab-model',
  permission: { bash: ask ? 'ask' : 'allow', edit: ask ? 'ask' : 'allow' },
  autoupdate: false,
  share: 'disabled',
})

const OPENCODE_ENV = ['DISABLE_AUTOUPDATE', 'DISABLE_MODELS_FETCH', 'DISABLE_LSP_DOWNLOAD', 'DISABLE_DEFAULT_PLUGINS', 'DISABLE_SHARE', 'DISABLE_CLAUDE_CODE']
const xdg = (home) => ({
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_STATE_HOME: join(home, '.local', 'state'),
  XDG_CACHE_HOME: join(home, '.cache'),
})

/** How each agent is installed, started and pointed at the lab. */
const AGENTS = {
  'qwen-acp': {
    pkg: '@qwen-code/qwen-code',
    bin: 'qwen',
    args: () => ['--acp'],
    // It starts in `auto` (a classifier approves); `default` asks before a command.
    mode: 'default',
    sessionRoots: (ctx) => [['qwen', join(ctx.home, '.qwen')]],
    setup(ctx) {
      const dir = join(ctx.home, '.qwen')
      mkdirSync(dir, { recursive: true })
      const settings = {
        security: { auth: { selectedType: 'openai' } },
        selectedAuthType: 'openai',
        model: { name: 'lab-model' },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }
      writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2))
      return { OPENAI_BASE_URL: `${ctx.server.url}/v1`, OPENAI_API_KEY: 'lab-key', OPENAI_MODEL: 'lab-model' }
    },
  },
  'codex-acp': {
    pkg: '@zed-industries/codex-acp',
    bin: 'codex-acp',
    args: () => [],
    sessionRoots: (ctx) => [['sessions', join(ctx.home, '.codex', 'sessions')]],
    setup(ctx) {
      const home = join(ctx.home, '.codex')
      mkdirSync(home, { recursive: true })
      writeFileSync(join(home, 'config.toml'), codexConfig(ctx.server.url))
      return { CODEX_HOME: home, LAB_API_KEY: 'lab-key', RUST_LOG: 'warn' }
    },
  },
  'claude-acp': {
    pkg: '@zed-industries/claude-agent-acp',
    bin: 'claude-agent-acp',
    args: () => [],
    sessionRoots: (ctx) => [['projects', join(ctx.home, '.claude', 'projects')]],
    setup(ctx) {
      return claudeEnv(ctx.server.url)
    },
  },
  'gemini-acp': {
    pkg: '@google/gemini-cli',
    bin: 'gemini',
    args: () => ['--acp', '--model', 'lab-model'],
    sessionRoots: (ctx) => [['gemini', join(ctx.home, '.gemini')]],
    setup(ctx) {
      const dir = join(ctx.home, '.gemini')
      mkdirSync(dir, { recursive: true })
      const settings = {
        security: { auth: { selectedType: 'gemini-api-key' } },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }
      writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2))
      // The Gemini API at the lab's server (its own route, lab/server/gemini.mjs).
      return { GOOGLE_GEMINI_BASE_URL: ctx.server.url, GEMINI_API_KEY: 'lab-key', GEMINI_MODEL: 'lab-model' }
    },
  },
  'opencode-acp': {
    pkg: 'opencode-ai',
    bin: 'opencode',
    args: () => ['acp'],
    sessionRoots: (ctx) => [['opencode', join(ctx.home, '.local', 'share', 'opencode')]],
    setup(ctx) {
      const env = { ...xdg(ctx.home), npm_config_offline: 'true' }
      for (const k of OPENCODE_ENV) env[`OPENCODE_${k}`] = '1'
      const dir = join(env.XDG_CONFIG_HOME, 'opencode')
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'opencode.json'), JSON.stringify(opencodeConfig(ctx.server.url, true), null, 2))
      return env
    },
  },
  'kilo-acp': {
    pkg: '@kilocode/cli',
    bin: 'kilo',
    args: () => ['acp'],
    sessionRoots: (ctx) => [['kilo', join(ctx.home, '.local', 'share', 'kilo')]],
    setup(ctx) {
      const env = { ...xdg(ctx.home), npm_config_offline: 'true', KILO_TELEMETRY_LEVEL: 'off', KILO_NO_DAEMON: '1' }
      for (const k of [...OPENCODE_ENV, 'DISABLE_SESSION_INGEST', 'DISABLE_PRESENCE']) env[`KILO_${k}`] = '1'
      const dir = join(env.XDG_CONFIG_HOME, 'kilo')
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'kilo.json'), JSON.stringify(opencodeConfig(ctx.server.url, true), null, 2))
      return env
    },
  },
}

/** Scenarios that need what an ACP run cannot give. */
function unsupported(scenario, name) {
  if (scenario.subagent) return 'a sub-agent is not part of an ACP run here'
  if (scenario.compact) return 'compaction is not driven over ACP here'
  return undefined
}

function tool(name) {
  const agent = AGENTS[name]
  return {
    name,
    pkg: agent.pkg,
    bin: agent.bin,
    acp: true,
    // The abort is ACP's own: the client sends session/cancel, the lab does not stop it.
    cancels: true,
    sessionRoots: agent.sessionRoots,
    unsupported: (scenario, version, scenarioName) => unsupported(scenario, scenarioName),
    async run(ctx) {
      ctx.env = { ...ctx.env, ...agent.setup(ctx) }
      const acp = ctx.scenario.acp ?? {}
      const spec = (extra) => ({
        cmd: ctx.bin,
        args: agent.args(ctx.version),
        cwd: ctx.work,
        env: ctx.env,
        fs: !!acp.clientTools,
        terminal: !!acp.clientTools,
        permission: acp.permission ?? 'allow',
        mode: agent.mode,
        ...extra,
      })
      const write = (file, value) => {
        const path = join(ctx.out, file)
        writeFileSync(path, JSON.stringify(value, null, 2) + '\n')
        return path
      }
      const sessionFile = join(ctx.out, 'session-id.txt')
      const prompts = [ctx.scenario.prompt, ...(acp.then ?? [])]
      // A moment after the last answer before the agent is stopped: some write their session as they go idle.
      const live = spec({ log: join(ctx.out, 'live.ndjson'), prompts, sessionFile, cancelAfterText: ctx.scenario.abort ? 1000 : undefined, settleMs: 3000 })
      await ctx.exec('live', process.execPath, [CLIENT, write('live.spec.json', live)], { stdoutName: 'live.stdout', timeoutMs: 300_000 })
      ctx.snapshot()
      if (!existsSync(sessionFile)) return { status: 'failed', error: 'no session was opened' }
      const id = readFileSync(sessionFile, 'utf8').trim()
      const load = spec({ log: join(ctx.out, 'load.ndjson'), load: id, settleMs: 1500 })
      await ctx.exec('load', process.execPath, [CLIENT, write('load.spec.json', load)], { stdoutName: 'load.stdout', timeoutMs: 120_000 })
    },
  }
}

export const ACP_TOOLS = Object.keys(AGENTS).map(tool)
