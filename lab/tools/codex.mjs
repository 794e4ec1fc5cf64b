// OpenAI Codex CLI (`@openai/codex`): `codex exec --json` against the lab's Responses
// endpoint, given as a `model_providers` entry in CODEX_HOME/config.toml. Its rollouts
// are under CODEX_HOME/sessions; what Codex itself shows of a thread is read back through
// its app server (`thread/read` with the turns), where the version has one.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { appServerRead } from './codex-threads.mjs'
import { codexProvider } from './lab-env.mjs'

const config = (url, scenario) =>
  [
    'model = "lab-model"',
    'model_provider = "lab"',
    // An approval scenario has the agent ask its client (the app server's) before a command.
    `approval_policy = "${scenario.approval ? 'untrusted' : 'never'}"`,
    'sandbox_mode = "danger-full-access"',
    'model_reasoning_summary = "detailed"',
    'show_raw_agent_reasoning = true',
    'hide_agent_reasoning = false',
    'model_context_window = 200000',
    scenario.compact ? 'model_auto_compact_token_limit = 20000' : '',
    'check_for_update_on_startup = false',
    '',
    ...codexProvider('lab', url),
    '[features]',
    '',
  ].join('\n')

/** Points Codex at the lab: CODEX_HOME with its config.toml, in the run's environment. */
export function codexConfig(ctx) {
  const codexHome = join(ctx.home, '.codex')
  mkdirSync(codexHome, { recursive: true })
  writeFileSync(join(codexHome, 'config.toml'), config(ctx.server.url, ctx.scenario))
  ctx.env = { ...ctx.env, CODEX_HOME: codexHome, LAB_API_KEY: 'lab-key', RUST_LOG: 'warn' }
  return codexHome
}

export default {
  name: 'codex',
  pkg: '@openai/codex',
  bin: 'codex',
  sessionRoots: (ctx) => [
    ['sessions', join(ctx.home, '.codex', 'sessions')],
    ['archived_sessions', join(ctx.home, '.codex', 'archived_sessions')],
  ],
  async run(ctx) {
    const codexHome = codexConfig(ctx)
    const help = spawnSync(ctx.bin, ['exec', '--help'], { env: ctx.env, encoding: 'utf8' })
    const helpText = `${help.stdout}${help.stderr}`
    if (!/--json/.test(helpText)) return runTypeScriptCli(ctx)
    const args = ['exec', '--json']
    if (/--skip-git-repo-check/.test(helpText)) args.push('--skip-git-repo-check')
    args.push(ctx.scenario.prompt)
    await ctx.exec('exec', ctx.bin, args, { stdoutName: 'stream.jsonl' })
    const stream = readFileSync(join(ctx.out, 'stream.jsonl'), 'utf8')
    // Streams before ThreadEvent (0.1x–0.4x) name no thread: the rollout's file name does.
    const rollout = findRollouts(join(codexHome, 'sessions'))[0] ?? ''
    const id =
      stream.match(/"thread_id":"([^"]+)"/)?.[1] ??
      stream.match(/"session_id":"([^"]+)"/)?.[1] ??
      rollout.match(/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/)?.[1]
    if (id && !ctx.scenario.abort) {
      const view = await appServerRead(ctx, id)
      if (view) writeFileSync(join(ctx.out, 'resume.app-server.json'), JSON.stringify(view, null, 2) + '\n')
    }
    if (!existsSync(join(codexHome, 'sessions'))) return { status: 'failed', error: 'no rollout written' }
  },
}

/** The main script has given its last turn (or more was asked than it holds). */
const scriptDone = (scenario) => (requests) => {
  const main = scenario.prompt.match(/\[lab:([a-z0-9:-]+)\]/)[1]
  const last = scenario.scripts[main].length - 1
  return requests.some((r) => (r.script === main && r.step >= last) || r.rule === 'script-done' || r.rule === 'unscripted')
}

const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`

/**
 * The TypeScript CLI (0.1.25xxxxx): its quiet mode (`-q`) prints the Responses items as JSON
 * lines but writes no rollout; the interactive one writes `sessions/rollout-*.json` (one
 * JSON), so it runs too, under `script` for a terminal, stopped once the script is done.
 * Both take an end of standard input as "apply a patch from stdin" (its apply-patch entry
 * point is bundled into cli.js and thinks it is the main module): stdin stays open.
 */
async function runTypeScriptCli(ctx) {
  const env = { OPENAI_API_KEY: 'lab-key', OPENAI_BASE_URL: `${ctx.server.url}/v1` }
  const until = scriptDone(ctx.scenario)
  await ctx.exec('quiet', ctx.bin, ['-q', '--dangerously-auto-approve-everything', ctx.scenario.prompt], {
    stdoutName: 'stream.jsonl',
    stdin: 'open',
    env,
    until,
  })
  const before = ctx.server.requests.length
  // The interactive UI asks before commands it does not know as safe (printf, seq) unless
  // the approval mode is full-auto as well.
  const tui = `${quote(ctx.bin)} --approval-mode full-auto --dangerously-auto-approve-everything ${quote(ctx.scenario.prompt)}`
  await ctx.exec('tui', 'script', ['-qec', tui, '/dev/null'], {
    stdoutName: 'tui.terminal.txt',
    stdin: 'open',
    env: { ...env, TERM: 'xterm' },
    until: (requests) => until(requests.slice(before)),
    timeoutMs: 60_000,
  })
  return { note: 'TypeScript CLI: stream.jsonl from -q (no rollout), files/ from the interactive run (tui.terminal.txt)' }
}

function findRollouts(dir, out = []) {
  let entries = []
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return out
  }
  for (const e of entries) {
    if (e.isDirectory()) findRollouts(join(dir, e.name), out)
    else if (/^rollout-.*\.jsonl$/.test(e.name)) out.push(join(dir, e.name))
  }
  return out.sort()
}
