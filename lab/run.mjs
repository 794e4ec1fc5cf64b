// One lab run: a tool version × a scenario. Installs the version (cached), starts the
// model server with the scenario, runs the tool in a HOME of its own under the cache's
// runs/ folder, and leaves in the capture folder: the tool's stdout/stderr per step,
// the files it wrote (its session folders), the model requests (requests.jsonl) and
// run.json (commands, exit codes, times, what it holds).
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { CACHE, install } from './install.mjs'
import { launch } from './proc.mjs'
import { SCENARIOS } from './scenarios.mjs'
import { startServer } from './server/server.mjs'
import { TASK_TOOLS } from './server/script.mjs'

/** What every agent process gets; nothing else of the lab's own environment leaks in. */
function baseEnv(home) {
  return {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    USER: 'lab',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    TMPDIR: join(home, 'tmp'),
  }
}

/**
 * @param {{ tool: any, version: string, scenario: string, outRoot: string, keep?: boolean }} o
 */
export async function runOne({ tool, version, scenario: scenarioName, outRoot, keep }) {
  const out = join(outRoot, tool.name, version, scenarioName)
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  const scenario = SCENARIOS[scenarioName]
  const record = { tool: tool.name, pkg: tool.pkg, version, scenario: scenarioName, about: scenario.about, steps: [] }
  const finish = (status, extra = {}) => {
    Object.assign(record, { status }, extra)
    record.files = listFiles(out)
    writeFileSync(join(out, 'run.json'), JSON.stringify(record, null, 2) + '\n')
    return record
  }
  const inst = install(tool.pkg, version, tool.bin)
  if (!inst.ok) return finish('install-failed', { error: inst.error.slice(0, 4000) })
  const unsupported =
    (scenario.acp && !tool.acp ? 'a scenario of ACP clients' : undefined) ??
    (scenario.only && !scenario.only.includes(tool.name) ? `only for ${scenario.only.join(', ')}` : undefined) ??
    tool.unsupported?.(scenario, version, scenarioName)
  if (unsupported) return finish('unsupported', { reason: unsupported })

  mkdirSync(join(CACHE, 'runs'), { recursive: true })
  const base = mkdtempSync(join(CACHE, 'runs', `${tool.name}-${version}-${scenarioName}-`))
  const home = join(base, 'home')
  const work = join(base, 'work')
  for (const d of [home, work, join(home, 'tmp')]) mkdirSync(d, { recursive: true })
  writeFileSync(join(work, 'notes.txt'), 'A file for the lab to list.\n')
  spawnSync('git', ['init', '-q', work])

  let current = null
  let stalls = 0
  const server = await startServer({
    scenario,
    log: join(out, 'requests.jsonl'),
    onStall: () => {
      stalls++
      // Let the partial answer reach the tool's own output before stopping it (an ACP
      // client cancels the turn itself).
      if (!tool.cancels) setTimeout(() => current?.stop(), 1500)
    },
  })
  const ctx = {
    bin: inst.bin,
    dir: inst.dir,
    version,
    scenario,
    scenarioName,
    server,
    home,
    work,
    out,
    env: baseEnv(home),
    /** run.json as it is being written (an adapter adds the steps it runs itself). */
    record,
    /** Runs one step of the tool; its stdout is `<name>.stdout` (or `stdout` given). */
    exec: async (name, cmd, args, opts = {}) => {
      const stdout = join(out, opts.stdoutName ?? `${name}.stdout`)
      const stderr = join(out, `${name}.stderr`)
      const step = { name, cmd: relative(inst.dir, cmd).startsWith('..') ? cmd : relative(inst.dir, cmd), args }
      const p = launch(cmd, args, {
        cwd: opts.cwd ?? work,
        env: { ...ctx.env, ...opts.env },
        stdout,
        stderr,
        stdin: opts.stdin,
        timeoutMs: opts.timeoutMs ?? 240_000,
      })
      current = p
      // `until`: a test over the requests so far; once it holds the step is stopped (for
      // interactive tools that never exit by themselves).
      let poll
      if (opts.until) {
        poll = setInterval(() => {
          if (opts.until(server.requests)) {
            clearInterval(poll)
            setTimeout(() => p.stop(), opts.settleMs ?? 2500)
          }
        }, 250)
      }
      const r = await p.done
      clearInterval(poll)
      current = null
      Object.assign(step, r)
      record.steps.push(step)
      return { ...r, stdout, stderr }
    },
  }
  /** Records a step the tool ran by itself (a protocol session rather than a command). */
  ctx.record = (step) => record.steps.push(step)
  let snapshotted = false
  /** Copies the tool's session folders into the capture (before any step that may write more). */
  ctx.snapshot = () => {
    snapshotted = true
    for (const [label, dir] of tool.sessionRoots(ctx)) {
      if (existsSync(dir)) cpSync(dir, join(out, 'files', label), { recursive: true, verbatimSymlinks: true })
    }
  }
  let status = 'captured'
  let error
  try {
    const r = await tool.run(ctx)
    if (r?.status) status = r.status
    if (r?.note) record.note = r.note
    if (r?.reason) record.reason = r.reason
    if (r?.wholeVersion) record.wholeVersion = true
    if (r?.error) error = r.error
  } catch (e) {
    status = 'failed'
    error = String(e?.stack ?? e)
  } finally {
    await server.close()
  }
  if (!snapshotted) ctx.snapshot()
  record.requests = server.requests.map((r) => [r.method, r.path, r.rule, r.script, r.step].filter((x) => x !== undefined).join(' '))
  record.stalls = stalls
  record.missing = missingFrom(scenario.expect ?? {}, server.requests, stalls)
  for (const step of record.steps) if (step.timedOut) record.missing.push(`step ${step.name} timed out`)
  const declared = [...new Set(server.requests.flatMap((r) => r.tools ?? []))]
  if (scenario.subagent && declared.length && !declared.some((t) => TASK_TOOLS.includes(t))) {
    // Not a failure of the run: this version has no sub-agent tool to call.
    status = 'unsupported'
    record.reason = `declares no sub-agent tool (its tools: ${declared.join(', ')})`
  } else if (status === 'captured' && record.missing.length) status = 'incomplete'
  if (status === 'unsupported') record.missing = []
  if (!keep) rmSync(base, { recursive: true, force: true })
  else record.runDir = base
  return finish(status, error ? { error: error.slice(0, 4000) } : {})
}

/** What the scenario expected the model server to see and it did not. */
function missingFrom(expect, requests, stalls) {
  const missing = []
  for (const [script, step] of Object.entries(expect.steps ?? {})) {
    if (!requests.some((r) => r.script === script && r.step >= step)) missing.push(`script ${script} step ${step}`)
  }
  for (const rule of expect.rules ?? []) if (!requests.some((r) => r.rule === rule)) missing.push(`a ${rule} request`)
  if (expect.stall && stalls === 0) missing.push('the stall')
  return missing
}

function listFiles(dir, root = dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    const s = statSync(p, { throwIfNoEntry: false })
    if (!s) continue
    if (s.isDirectory()) listFiles(p, root, out)
    else out.push({ path: relative(root, p), bytes: s.size })
  }
  return out
}
