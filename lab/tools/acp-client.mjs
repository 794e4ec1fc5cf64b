#!/usr/bin/env node
// An ACP client on the protocol's own SDK (`@agentclientprotocol/sdk`), as an editor is one:
// it starts the agent on stdio, `initialize`s (with or without the client's fs and terminal
// capabilities), then either opens a session and sends the prompts, answering permission
// requests, fs and terminal requests as it is told, or loads a stored session
// (`session/load`). Every JSON-RPC message, both ways, is logged as the SDK parsed or sent it,
// one record a line: `{"direction":"send"|"receive","message":{…}}`.
//
//   node lab/tools/acp-client.mjs SPEC.json
//
// SPEC: { cmd, args, cwd, env, log, prompts?: string[], load?: sessionId, sessionFile?,
//         fs?: boolean, terminal?: boolean, permission?: 'allow' | 'reject', mode?: string,
//         cancelAfterText?: number (ms after the first agent text to send session/cancel),
//         settleMs?: number }
import { spawn, spawnSync } from 'node:child_process'
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { Readable, Writable } from 'node:stream'
import { client, methods, ndJsonStream } from '@agentclientprotocol/sdk'

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'))
writeFileSync(spec.log, '')
const log = (direction, message) => appendFileSync(spec.log, JSON.stringify({ direction, message }) + '\n')

const agent = spawn(spec.cmd, spec.args ?? [], { cwd: spec.cwd, env: spec.env ?? process.env, stdio: ['pipe', 'pipe', 'inherit'], detached: true })
const stop = () => {
  try {
    process.kill(-agent.pid, 'SIGKILL')
  } catch {
    // gone
  }
}
process.on('exit', stop)
agent.on('exit', (code, signal) => process.stderr.write(`[acp-client] agent exited ${code ?? signal}\n`))

// The transport the SDK reads and writes, with a tap on each side.
const raw = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout))
const tap = (direction) =>
  new TransformStream({
    transform(message, out) {
      log(direction, message)
      out.enqueue(message)
    },
  })
const incoming = tap('receive')
const outgoing = tap('send')
raw.readable.pipeTo(incoming.writable).catch(() => {})
outgoing.readable.pipeTo(raw.writable).catch(() => {})
const stream = { readable: incoming.readable, writable: outgoing.writable }

let sawText
const textSeen = new Promise((resolve) => (sawText = resolve))
const terminals = new Map()
let nextTerminal = 0

const app = client({ name: 'agent-chunks-lab' })
  .onNotification(methods.client.session.update, ({ params }) => {
    if (params.update?.sessionUpdate === 'agent_message_chunk' && params.update.content?.text) sawText()
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    const want = spec.permission === 'reject' ? ['reject_once', 'reject_always'] : ['allow_once', 'allow_always']
    const option = want.map((kind) => params.options.find((o) => o.kind === kind)).find(Boolean) ?? params.options[0]
    return { outcome: option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' } }
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    const lines = readFileSync(params.path, 'utf8').split('\n')
    const from = (params.line ?? 1) - 1
    return { content: lines.slice(from, params.limit ? from + params.limit : undefined).join('\n') }
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    writeFileSync(params.path, params.content)
    return {}
  })
  .onRequest(methods.client.terminal.create, ({ params }) => {
    // Run to the end at once: the lab's commands are short.
    const env = { ...process.env, ...Object.fromEntries((params.env ?? []).map((e) => [e.name, e.value])) }
    const args = params.args ?? []
    const r = args.length ? spawnSync(params.command, args, { cwd: params.cwd ?? spec.cwd, env, encoding: 'utf8' }) : spawnSync('bash', ['-c', params.command], { cwd: params.cwd ?? spec.cwd, env, encoding: 'utf8' })
    const id = `term-${++nextTerminal}`
    let output = (r.stdout ?? '') + (r.stderr ?? '')
    const limit = params.outputByteLimit
    const truncated = limit != null && Buffer.byteLength(output) > limit
    if (truncated) output = Buffer.from(output).subarray(-limit).toString('utf8')
    terminals.set(id, { output, truncated, exitStatus: { exitCode: r.status, signal: r.signal } })
    return { terminalId: id }
  })
  .onRequest(methods.client.terminal.output, ({ params }) => {
    const t = terminals.get(params.terminalId)
    return { output: t.output, truncated: t.truncated, exitStatus: t.exitStatus }
  })
  .onRequest(methods.client.terminal.waitForExit, ({ params }) => terminals.get(params.terminalId).exitStatus)
  .onRequest(methods.client.terminal.kill, () => ({}))
  .onRequest(methods.client.terminal.release, ({ params }) => {
    terminals.delete(params.terminalId)
    return {}
  })

const settle = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
let failed = false
try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: !!spec.fs, writeTextFile: !!spec.fs }, terminal: !!spec.terminal },
      clientInfo: { name: 'agent-chunks-lab', version: '1.0.0' },
    })
    if (spec.load) {
      if (!init.agentCapabilities?.loadSession) throw new Error('the agent cannot load sessions')
      await ctx.request(methods.agent.session.load, { sessionId: spec.load, cwd: spec.cwd, mcpServers: [] })
      await settle(spec.settleMs ?? 1000)
      return
    }
    const session = await ctx.request(methods.agent.session.new, { cwd: spec.cwd, mcpServers: [] })
    if (spec.sessionFile) writeFileSync(spec.sessionFile, session.sessionId)
    // The mode in which the agent asks before it acts, when it starts in another.
    const modes = session.modes
    if (spec.mode && modes?.currentModeId !== spec.mode && modes?.availableModes?.some((m) => m.id === spec.mode)) {
      await ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: spec.mode })
    }
    for (const text of spec.prompts ?? []) {
      const turn = ctx.request(methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: 'text', text }] })
      if (spec.cancelAfterText != null) {
        textSeen.then(() => settle(spec.cancelAfterText)).then(() => ctx.notify(methods.agent.session.cancel, { sessionId: session.sessionId }))
      }
      try {
        await turn
      } catch (error) {
        // A failed turn is part of the conversation: go on as an editor would.
        process.stderr.write(`[acp-client] prompt failed: ${error?.message ?? error}\n`)
      }
    }
    await settle(spec.settleMs ?? 1000)
  })
} catch (error) {
  failed = true
  process.stderr.write(`[acp-client] ${error?.stack ?? error}\n`)
}
stop()
process.exit(failed ? 1 : 0)
