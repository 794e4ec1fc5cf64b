// OpenCode (`opencode-ai`) and its fork Kilo CLI (`@kilocode/cli`): a provider of type
// `@ai-sdk/openai-compatible` pointed at the lab's chat completions in the config file
// ($XDG_CONFIG_HOME/opencode/opencode.json, Kilo's kilo/kilo.json), every switch that keeps
// it off the network, and fresh XDG folders. Each run captures one session per way in:
//
//   stream.jsonl          `run --format json` (with --thinking where the version has it)
//   stream.event.sse      `serve`'s GET /event while the prompt is sent through the HTTP API
//   stream.global.sse     `serve`'s GET /global/event, the same time
//   stream.api.sse        `serve`'s GET /api/event, where the version answers it (Kilo)
//   resume.messages.<id>.json   GET /session/:id/message of every session the store holds
//   resume.session.<id>.json    GET /session/:id
//   resume.export.<id>.json     `export <id>`'s stdout
//   files/after-run/      the data folder as `run` left it (the store, mostly in its WAL)
//   files/data/           the data folder at the end (db + wal + shm, or the legacy
//                         storage/ JSON tree), copied as files, never opened
//
// What OpenCode shows of a session is GET /session/:id/message and its export.
import { closeSync, cpSync, createWriteStream, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { install } from '../install.mjs'
import { launch } from '../proc.mjs'

/** a < b, both x.y.z. */
const older = (a, b) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number))
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i]
  return false
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** A free port on 127.0.0.1 for `serve`. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.on('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {any} */ (s.address())
      s.close(() => resolve(port))
    })
  })
}

/** The config: the lab as a provider, its model the default, the shell allowed without asking. */
function config(url, scenario) {
  return {
    // The lab's scripted sub-agent call names `general-purpose` (OpenCode's own is `general`).
    ...(scenario.subagent ? { agent: { 'general-purpose': { description: 'A lab sub-agent: runs what it is asked.', mode: 'subagent' } } } : {}),
    provider: {
      lab: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Lab',
        options: { baseURL: `${url}/v1`, apiKey: 'lab-key' },
        models: {
          'lab-model': {
            name: 'Lab model',
            tool_call: true,
            reasoning: true,
            // The compaction scenario reports 195 000 input tokens: past what this leaves.
            limit: { context: 200000, output: 16384 },
          },
        },
      },
    },
    model: 'lab/lab-model',
    small_model: 'lab/lab-model',
    // external_directory: the failing command reads outside the project (asked, then
    // auto-rejected by `run`, left waiting by `serve`).
    permission: { bash: 'allow', edit: 'allow', webfetch: 'allow', external_directory: 'allow' },
    autoupdate: false,
    share: 'disabled',
  }
}

/** An SSE subscription written byte for byte to a file until stopped. */
function subscribe(url, file) {
  const ac = new AbortController()
  const out = createWriteStream(file)
  let bytes = 0
  let status = 0
  const done = (async () => {
    try {
      const res = await fetch(url, { signal: ac.signal, headers: { accept: 'text/event-stream' } })
      status = res.status
      // A route a version does not have may answer with its web app's page (1.14.34's /api/event).
      if (!/text\/event-stream/.test(res.headers.get('content-type') ?? '')) status = `${status} ${res.headers.get('content-type')}`
      if (status !== 200 || !res.body) return
      for await (const chunk of res.body) {
        bytes += chunk.length
        out.write(chunk)
      }
    } catch {
      // stopped, or the server went away
    } finally {
      await new Promise((r) => out.end(r))
    }
  })()
  return {
    get bytes() {
      return bytes
    },
    get status() {
      return status
    },
    stop: async () => {
      ac.abort()
      await done
    },
  }
}

async function call(base, method, path, body, timeoutMs = 60_000) {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      signal: AbortSignal.timeout(timeoutMs),
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    let json
    try {
      json = JSON.parse(text)
    } catch {
      // not JSON
    }
    return { status: res.status, text, json }
  } catch (error) {
    return { status: 0, text: String(error), json: undefined }
  }
}

function variant({ name, pkg, bin, prefix, folder, configFile }) {
  const dataDir = (ctx) => join(ctx.home, '.local', 'share', folder)
  return {
    name,
    pkg,
    bin,
    sessionRoots: (ctx) => [['data', dataDir(ctx)]],
    async run(ctx) {
      const configDir = join(ctx.home, '.config', folder)
      spawnSync('mkdir', ['-p', configDir, join(ctx.home, '.local', 'share'), join(ctx.home, '.local', 'state'), join(ctx.home, '.cache')])
      writeFileSync(join(configDir, configFile), JSON.stringify(config(ctx.server.url, ctx.scenario), null, 2) + '\n')
      const off = ['DISABLE_AUTOUPDATE', 'DISABLE_MODELS_FETCH', 'DISABLE_LSP_DOWNLOAD', 'DISABLE_DEFAULT_PLUGINS', 'DISABLE_SHARE', 'DISABLE_CLAUDE_CODE']
      if (prefix === 'KILO') off.push('DISABLE_SESSION_INGEST', 'DISABLE_PRESENCE')
      ctx.env = {
        ...ctx.env,
        XDG_DATA_HOME: join(ctx.home, '.local', 'share'),
        XDG_CONFIG_HOME: join(ctx.home, '.config'),
        XDG_STATE_HOME: join(ctx.home, '.local', 'state'),
        XDG_CACHE_HOME: join(ctx.home, '.cache'),
        npm_config_offline: 'true',
        ...Object.fromEntries(off.map((k) => [`${prefix}_${k}`, '1'])),
        ...(prefix === 'KILO' ? { KILO_TELEMETRY_LEVEL: 'off', KILO_NO_DAEMON: '1' } : {}),
      }
      const notes = []
      // OpenCode before 1.1 installs a provider's package with Bun at run time, from the
      // registry: the lab gives it one from the npm registry (for the AI SDK it bundles: 4
      // before 0.4, then 5) in the cache folder, marked as installed, and points Bun at a
      // registry that is not there.
      ctx.env.BUN_CONFIG_REGISTRY = 'http://127.0.0.1:9/'
      ctx.env.npm_config_registry = 'http://127.0.0.1:9/'
      if (name === 'opencode' && older(ctx.version, '1.1.0')) {
        const version = older(ctx.version, '0.4.0') ? '0.2.16' : '1.0.19'
        const provider = install('@ai-sdk/openai-compatible', version, '')
        if (!provider.ok) return { status: 'failed', error: provider.error }
        const cache = join(ctx.env.XDG_CACHE_HOME, 'opencode')
        // It empties its cache folder at start unless the folder's `version` is its own.
        const binary = join(ctx.dir, 'node_modules', 'opencode-linux-x64', 'bin', 'opencode')
        const own = existsSync(binary) ? /CACHE_VERSION = "(\w+)"/.exec(readFileSync(binary, 'latin1'))?.[1] : undefined
        cpSync(join(provider.dir, 'node_modules'), join(cache, 'node_modules'), { recursive: true })
        if (own) writeFileSync(join(cache, 'version'), own)
        writeFileSync(join(cache, 'package.json'), JSON.stringify({ dependencies: { '@ai-sdk/openai-compatible': 'latest' } }, null, 2))
        notes.push(`@ai-sdk/openai-compatible ${version} given in its cache (it installs providers at run time)`)
      }
      const help = spawnSync(ctx.bin, ['run', '--help'], { env: ctx.env, cwd: ctx.work, encoding: 'utf8', timeout: 60_000 })
      const has = (flag) => `${help.stdout}${help.stderr}`.includes(flag)

      // 1. `run --format json`: the headless stream.
      const args = ['run']
      if (has('--format')) args.push('--format', 'json')
      else notes.push('run has no --format: its stdout is its text output')
      if (has('--thinking')) args.push('--thinking')
      if (has('--model')) args.push('--model', 'lab/lab-model')
      args.push(ctx.scenario.prompt)
      const before = ctx.server.requests.length
      const ran = await ctx.exec('run', ctx.bin, args, { stdoutName: has('--format') ? 'stream.jsonl' : 'run.stdout' })
      // 0.1 and 0.5 stop at a fetch of their own before the first model request of a prompt.
      const said = readFileSync(ran.stderr, 'utf8')
      if (!ctx.server.requests.slice(before).some((r) => r.rule === 'script') && /Unable to connect/.test(said + logsOf(dataDir(ctx)))) {
        return { status: 'unsupported', reason: 'stops with "Unable to connect" (a fetch of its own) before the first model request: it does not run without the network', wholeVersion: true, note: notes.join('; ') || undefined }
      }
      if (existsSync(dataDir(ctx))) cpSync(dataDir(ctx), join(ctx.out, 'files', 'after-run'), { recursive: true, verbatimSymlinks: true })

      // 2. `serve`: the event streams subscribed while the prompt goes through the HTTP API.
      const served = await serve(ctx, notes)

      // 3. The store as the processes left it, before anything opens it again.
      ctx.snapshot()

      // 4. `export <id>` of every session, where the version has it (1.0 on).
      const top = spawnSync(ctx.bin, ['--help'], { env: ctx.env, cwd: ctx.work, encoding: 'utf8', timeout: 60_000 })
      const sessions = /\bexport\b/.test(`${top.stdout}${top.stderr}`) ? new Set(served.sessions) : new Set()
      if (served.sessions.length && !sessions.size) notes.push('no export command in this version')
      // Into a file, not a pipe: 1.18.33 exits 0 with its piped stdout cut after 219,264
      // bytes (a 256 KB session's export), a file gets all of it.
      for (const id of sessions) {
        const started = Date.now()
        const out = openSync(join(ctx.out, `resume.export.${id}.json`), 'w')
        const err = openSync(join(ctx.out, `export-${id}.stderr`), 'w')
        const r = spawnSync(ctx.bin, ['export', id], { cwd: ctx.work, env: ctx.env, stdio: ['ignore', out, err], timeout: 60_000 })
        closeSync(out)
        closeSync(err)
        ctx.record.steps.push({ name: `export-${id}`, cmd: 'export', args: [id], stdout: 'a file', code: r.status, signal: r.signal, ms: Date.now() - started })
      }
      return { note: notes.join('; ') || undefined }
    },
  }
}

/**
 * Starts `serve`, subscribes its event streams, sends the scenario's prompt through the API
 * (a new session, prompt_async or the blocking message route), waits for the session to go
 * idle (or aborts it through the API once the scripted answer stalls), then reads back every
 * session the server knows. Returns their ids.
 */
async function serve(ctx, notes) {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const stdout = join(ctx.out, 'serve.stdout')
  const stderr = join(ctx.out, 'serve.stderr')
  const started = Date.now()
  const p = launch(ctx.bin, ['serve', '--port', String(port), '--hostname', '127.0.0.1'], {
    cwd: ctx.work,
    env: ctx.env,
    stdout,
    stderr,
    timeoutMs: 300_000,
  })
  const step = { name: 'serve', cmd: 'serve', args: ['--port', String(port), '--hostname', '127.0.0.1'] }
  const out = { sessions: [] }
  const streams = []
  try {
    // Up once it says so and answers; a request sent before it said so may never be
    // answered (1.18.33), so each try has a short limit.
    let up = false
    let exited = false
    p.done.then(() => (exited = true))
    for (let i = 0; i < 240 && !up && !exited; i++) {
      await sleep(500)
      const said = `${readFileSync(stdout, 'utf8')}${readFileSync(stderr, 'utf8')}`
      // A version that fails to start says "Error: Unexpected error" and waits.
      if (/Error: /.test(said.replace(/\x1b\[[0-9;]*m/g, ''))) break
      if (!/listening on/.test(said)) continue
      const r = await call(base, 'GET', '/session', undefined, 5000)
      up = r.status > 0
    }
    if (!up) {
      notes.push(`serve never answered${exited ? ' (it exited)' : ''}`)
      return out
    }
    for (const [file, path] of [
      ['stream.event.sse', '/event'],
      ['stream.global.sse', '/global/event'],
      ['stream.api.sse', '/api/event'],
    ]) {
      streams.push({ file, path, sub: subscribe(`${base}${path}`, join(ctx.out, file)) })
    }
    // Each stream's first event (server.connected) before the prompt.
    for (let i = 0; i < 40 && streams.some((s) => s.sub.bytes === 0 && (s.sub.status === 0 || s.sub.status === 200)); i++) await sleep(100)
    const created = await call(base, 'POST', '/session', {})
    const id = created.json?.id
    if (!id) {
      notes.push(`POST /session answered ${created.status}: ${created.text.slice(0, 200)}`)
      return out
    }
    const before = ctx.server.requests.length
    const parts = [{ type: 'text', text: ctx.scenario.prompt }]
    const model = { providerID: 'lab', modelID: 'lab-model' }
    let sent = await call(base, 'POST', `/session/${id}/prompt_async`, { parts, model })
    let blocking
    if (sent.status === 404) {
      // Before prompt_async: the message route answers when the turn ends.
      blocking = call(base, 'POST', `/session/${id}/message`, { parts, model, ...model })
      notes.push('serve: no prompt_async, the prompt went through POST /session/:id/message')
    } else if (sent.status >= 300) {
      notes.push(`prompt_async answered ${sent.status}: ${sent.text.slice(0, 200)}`)
    }
    // Idle: the session's status says so (or the blocking call answered); an abort scenario
    // aborts through the API once the scripted answer has stalled.
    const eventFile = join(ctx.out, 'stream.event.sse')
    let aborted = false
    const answered = new Set()
    for (let i = 0; i < 1200; i++) {
      await sleep(250)
      if (ctx.scenario.abort && !aborted && ctx.server.requests.slice(before).some((r) => r.script === 'abort')) {
        await sleep(1500)
        const r = await call(base, 'POST', `/session/${id}/abort`, {})
        notes.push(`serve: aborted through POST /session/:id/abort (${r.status})`)
        aborted = true
      }
      if (blocking && (await Promise.race([blocking.then(() => true), sleep(0).then(() => false)]))) break
      const events = readFileSync(eventFile, 'utf8')
      // A permission the config did not allow is asked on the stream: allowed once, through
      // the route the version has, as a GUI would.
      for (const ask of permissionsAsked(events)) {
        if (answered.has(ask)) continue
        answered.add(ask)
        const a = await call(base, 'POST', `/permission/${ask}/reply`, { reply: 'once' })
        const b = a.status === 404 ? await call(base, 'POST', `/session/${id}/permissions/${ask}`, { response: 'once' }) : a
        notes.push(`serve: permission ${ask} asked, allowed once (${b.status})`)
      }
      if (idleIn(events, id) && ctx.server.requests.length > before) break
      if (i % 8 === 7) {
        const st = await call(base, 'GET', '/session/status')
        if (st.json && typeof st.json === 'object' && !st.json[id] && ctx.server.requests.length > before && i > 16) break
      }
    }
    if (blocking) await blocking
    // The events that follow the idle one (session.diff, the user message again).
    await sleep(2000)
    const list = await call(base, 'GET', '/session')
    const ids = Array.isArray(list.json) ? list.json.map((s) => s.id).filter((s) => typeof s === 'string') : [id]
    if (!ids.includes(id)) ids.push(id)
    out.sessions = ids
    for (const sid of ids) {
      const messages = await call(base, 'GET', `/session/${sid}/message`)
      writeFileSync(join(ctx.out, `resume.messages.${sid}.json`), messages.text)
      const session = await call(base, 'GET', `/session/${sid}`)
      writeFileSync(join(ctx.out, `resume.session.${sid}.json`), session.text)
    }
    return out
  } finally {
    for (const s of streams) {
      await s.sub.stop()
      // A route the version does not have leaves no file.
      if (s.sub.status !== 200 && existsSync(join(ctx.out, s.file)) && readFileSync(join(ctx.out, s.file)).length === 0) {
        notes.push(`serve: ${s.path} answered ${s.sub.status}`)
        spawnSync('rm', ['-f', join(ctx.out, s.file)])
      }
    }
    p.stop(5000)
    const r = await p.done
    // Stopped by the lab once the turn was read back: not an interrupted run.
    Object.assign(step, r, { ms: Date.now() - started, signal: null, stoppedWith: r.signal })
    ctx.record.steps.push(step)
  }
}

/** The ids of the permissions asked on the /event stream (permission.asked, before 1.x permission.updated). */
function permissionsAsked(events) {
  const out = []
  for (const block of events.split('\n\n')) {
    if (!/"type":"permission\.(asked|updated)"/.test(block)) continue
    const id = /"properties":\{"id":"([^"]+)"/.exec(block)?.[1] ?? /"id":"(per[^"]+)"/.exec(block)?.[1]
    if (id) out.push(id)
  }
  return out
}

/** The text of the tool's logs under its data folder. */
function logsOf(data) {
  const dir = join(data, 'log')
  if (!existsSync(dir)) return ''
  return readdirSync(dir).map((n) => readFileSync(join(dir, n), 'latin1')).join('\n')
}

/** The /event stream says the session went idle (session.idle, or session.status idle). */
function idleIn(events, id) {
  for (const block of events.split('\n\n')) {
    if (!block.includes(id)) continue
    if (/"type":"session\.idle"/.test(block)) return true
    if (/"type":"session\.status"/.test(block) && /"type":"idle"/.test(block)) return true
  }
  return false
}

export const opencode = variant({ name: 'opencode', pkg: 'opencode-ai', bin: 'opencode', prefix: 'OPENCODE', folder: 'opencode', configFile: 'opencode.json' })
export const kilo = variant({ name: 'kilo', pkg: '@kilocode/cli', bin: 'kilo', prefix: 'KILO', folder: 'kilo', configFile: 'kilo.json' })
