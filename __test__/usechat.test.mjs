// The AI SDK's own React `useChat` (`@ai-sdk/react`, `DefaultChatTransport`) in headless
// Chromium, served by a backend of ours on 127.0.0.1 that does what docs/live.md says:
// each stream recording (every stream format, from examples/ and the fixtures) is pushed
// into a `Conversation` in random pieces, cut inside characters too, and
// `toUIMessageStream()` is written after every push. The page sends each user turn's
// message as the client holds it (the user's prompt the agent echoes); the server answers
// with the turn's part of the recording. After the last response, the page's messages
// must equal `aiSdk.fromMessages` of the recording read whole, its status must never have
// been 'error' and nothing may have been logged as an error. Three runs per recording:
//
// - live: every response served by one process;
// - killed: the process serving a response is killed mid-stream (SIGKILL, the browser's
//   connection dropped with it); the page calls `resumeStream()`, and a second process
//   goes on from the messages and resume state the first one kept;
// - reloaded: the page is reloaded mid-response; it loads the chat's messages and goes on
//   with `useChat({ resume: true })`.
//
// In the killed run the dropped connection is the one failure allowed: `useChat` reports
// it as status 'error' with `isDisconnect`, as the SDK does for any network failure.
// Seeds are fixed (USECHAT_SEED changes them) and printed with every failure.
import test, { after } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'
import { Conversation, aiSdk, detectFormat, foldStream } from 'agent-chunks'
import { createRng, deriveSeed } from './random-streams.mjs'
import { RECORDINGS, keep, pieces, play, turnsOf } from './usechat/serve.mjs'

const CHROMIUM = '/usr/bin/chromium'
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const here = join(root, '__test__', 'usechat')
const out = join(root, 'target', 'usechat-test')
const SEED = Number(process.env.USECHAT_SEED ?? 0x0c4a7)
// Whether the process taking over a response replays it from its start (docs/live.md).
const REPLAY = process.env.USECHAT_REPLAY !== '0'

const RUNS = ['live', 'killed', 'reloaded']

assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium`)

// ─── The page ────────────────────────────────────────────────────────────────────
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
await esbuild.build({
  entryPoints: [join(here, 'page.jsx')],
  outfile: join(out, 'main.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'error',
})
writeFileSync(join(out, 'index.html'), '<!doctype html><meta charset="utf-8"><title>chat</title><link rel="icon" href="data:,"><div id="root"></div><script type="module" src="/main.js"></script>\n')

// ─── The backend ─────────────────────────────────────────────────────────────────
const chats = new Map()
const plain = (value) => JSON.parse(JSON.stringify(value))
const SSE = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-vercel-ai-ui-message-stream': 'v1' }

async function body(request) {
  const parts = []
  for await (const part of request) parts.push(part)
  return JSON.parse(Buffer.concat(parts).toString('utf8'))
}

/** A child process answering from `saved` with `bytes`; resolves with its last state. */
function worker(chat, response, saved, bytes, { killAfter = Infinity, replay = false, killed = () => {} } = {}) {
  return new Promise((resolve) => {
    const child = fork(join(here, 'worker.mjs'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let messages = 0
    let last = { saved, consumed: 0 }
    child.on('message', (message) => {
      if (message.done) return (last = message)
      if (!response.destroyed) response.write(message.sse)
      last = message
      // Killed once it wrote something of the response (so that something went out).
      if (++messages >= killAfter && message.sse) {
        child.kill('SIGKILL')
        killed(last)
        response.destroy()
      }
    })
    child.on('exit', (code, signal) => resolve({ ...last, killed: signal === 'SIGKILL' }))
    child.send({ format: chat.format, saved, bytes: bytes.toString('base64'), seed: chat.seed, replay })
  })
}

/** Answers the chat's next turn (a POST of the page's `sendMessage`). */
async function answer(chat, response) {
  const t = chat.next++
  const bytes = chat.turns[t]?.bytes ?? Buffer.alloc(0)
  response.writeHead(200, SSE)
  response.flushHeaders()
  if (chat.run === 'killed' && t === chat.cutTurn) {
    const saved = keep(chat.live)
    // What the process kept last is what the next one goes on from.
    const killed = ({ saved: last, consumed }) => {
      chat.active = { saved: last, rest: bytes.subarray(consumed - (last.resume?.pending ?? 0)) }
    }
    const { killed: wasKilled } = await worker(chat, response, saved, bytes, { killAfter: chat.cutAfter, killed })
    assert.ok(wasKilled, 'the first process was killed mid-stream')
    return
  }
  const rng = createRng(deriveSeed(chat.seed, t))
  const cut = chat.run === 'reloaded' && t === chat.cutTurn ? chat.cutAfter : Infinity
  let written = 0
  let sent = ''
  const consumed = await play(chat.live, bytes, rng, {
    write: (sse) => {
      sent += sse
      return response.destroyed || response.write(sse)
    },
    after: () => ++written < cut,
    end: true,
  })
  if (written >= cut && consumed < bytes.length) {
    // The page goes away here; the rest of the turn waits for it to come back.
    chat.active = { rest: bytes.subarray(consumed), rng }
    chat.paused()
    return
  }
  chat.bodies.push(sent)
  response.end()
}

/** Answers a reconnect (`resumeStream()`, `useChat({ resume: true })`). */
async function reconnect(chat, response) {
  const active = chat.active
  if (!active) return response.writeHead(204).end()
  chat.active = undefined
  response.writeHead(200, SSE)
  if (active.saved) {
    const { saved } = await worker(chat, response, active.saved, active.rest, { replay: REPLAY })
    chat.live = new Conversation({ format: chat.format, ...saved })
  } else {
    await play(chat.live, active.rest, active.rng, {
      first: REPLAY ? chat.live.toUIMessageStream({ replay: true }) : '',
      write: (sse) => response.write(sse),
    })
  }
  response.end()
  chat.reconnected()
}

const server = createServer(async (request, response) => {
  try {
    const url = new URL(request.url, 'http://page')
    const path = url.pathname
    if (request.method === 'GET' && (path === '/' || path === '/main.js')) {
      const type = path === '/' ? 'text/html' : 'text/javascript'
      return response.writeHead(200, { 'content-type': `${type}; charset=utf-8` }).end(readFileSync(join(out, path === '/' ? 'index.html' : 'main.js')))
    }
    if (request.method === 'POST' && path === '/api/chat') {
      const { id, messages } = await body(request)
      const chat = chats.get(id)
      chat.stored = messages
      return await answer(chat, response)
    }
    const match = /^\/api\/chat\/([^/]+)\/(stream|messages)$/.exec(path)
    const chat = match && chats.get(decodeURIComponent(match[1]))
    if (request.method === 'GET' && chat && match[2] === 'stream') return await reconnect(chat, response)
    if (request.method === 'GET' && chat && match[2] === 'messages') {
      // The chat as stored: while a response is in flight, the messages its request sent
      // (the reconnect sends the response whole); else the conversation as it reads.
      const stored = chat.active ? chat.stored : aiSdk.fromMessages(chat.live.messages)
      return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stored))
    }
    response.writeHead(404).end()
  } catch (error) {
    console.error(error)
    if (!response.headersSent) response.writeHead(500)
    response.destroy()
  }
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${server.address().port}`

// ─── The browser ─────────────────────────────────────────────────────────────────
const { chromium } = await import('playwright-core')
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
const page = await browser.newPage()
let logged = []
page.on('console', (message) => message.type() === 'error' && logged.push(message.text()))
page.on('pageerror', (error) => logged.push(String(error?.stack ?? error)))
after(async () => {
  await browser.close()
  server.close()
  const total = results.length
  const shown = results.filter((r) => r.shown).length
  const by = RUNS.map((run) => `${run} ${results.filter((r) => r.run === run && r.shown).length}/${results.filter((r) => r.run === run).length}`)
  console.log(`useChat: shown as reloaded in ${shown} of ${total} recordings × runs (${by.join(', ')}), seed ${SEED}`)
})

const results = []
// The SDK keeps on a reasoning part the id the stream gave it: a name of the stream's,
// not content (`aiSdk.fromMessages`, like a UIMessage persisted and read back, has none).
const stripPartIds = (messages) => messages.map((m) => ({ ...m, parts: m.parts.map((part) => {
  if (part.type !== 'reasoning') return part
  const { id, ...rest } = part
  return rest
}) }))

/** What the page holds once nothing is in flight. */
async function settled() {
  await page.waitForFunction(() => {
    const h = globalThis.harness
    return h?.chat && h.chat.status !== 'submitted' && h.chat.status !== 'streaming' && h.replaced.size === 0
  }, null, { timeout: 30_000 })
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))))
  return page.evaluate(() => JSON.parse(JSON.stringify({
    messages: harness.chat.messages,
    status: harness.chat.status,
    statuses: harness.statuses,
    errors: harness.errors,
    finishes: harness.finishes,
  })))
}

async function runOne(file, run, seed) {
  const bytes = readFileSync(join(root, file))
  const { format } = detectFormat(bytes)
  const turns = turnsOf(bytes, format)
  const reload = foldStream(bytes, { format }).messages
  const expected = plain(aiSdk.fromMessages(reload))
  const rng = createRng(seed)
  const id = `${basename(file)}-${run}-${seed}`
  // The response cut (killed, reloaded): one with something to write, after a random piece.
  const writes = new Conversation({ format })
  // The server cuts after one of the response's pieces but its last: a turn sent in one
  // piece cannot be cut, so it is not a candidate.
  const piecesOf = (turn, t) => pieces(turn.bytes, createRng(run === 'killed' ? seed : deriveSeed(seed, t))).length
  const candidates = turns.map((turn, t) => [turn, t]).filter(([turn, t]) => {
    writes.push(turn.bytes)
    const written = writes.toUIMessageStream()
    writes.end()
    writes.toUIMessageStream()
    return written !== '' && (run === 'live' || piecesOf(turn, t) > 1)
  })
  assert.ok(candidates.length, `${file}: no response of more than one piece to cut`)
  const [cutTurnBytes, cutTurn] = rng.pick(candidates).map((x, i) => (i === 0 ? x.bytes : x))
  const count = piecesOf({ bytes: cutTurnBytes }, cutTurn)
  const chat = { format, turns, next: 0, live: new Conversation({ format }), seed, run, cutTurn, cutAfter: 1 + rng.int(Math.max(1, count - 1)), bodies: [] }
  const paused = new Promise((resolve) => (chat.paused = resolve))
  const reconnected = new Promise((resolve) => (chat.reconnected = resolve))
  chats.set(id, chat)
  logged = []
  await page.goto(`${origin}/?chat=${encodeURIComponent(id)}`)
  await page.waitForFunction(() => globalThis.harness?.ready)
  const statuses = []
  const errors = []
  for (const [t, turn] of turns.entries()) {
    const opens = turn.opens.map((i) => plain(aiSdk.fromMessages([reload[i]]))[0])
    const sending = page.evaluate(async (opens) => {
      const last = opens.pop()
      if (opens.length) harness.chat.setMessages((messages) => [...messages, ...opens])
      await harness.chat.sendMessage(last)
    }, opens)
    if (run === 'reloaded' && t === cutTurn) {
      await Promise.race([paused, sending])
      sending.catch(() => {})
      const before = await settledOrNot()
      statuses.push(...before.statuses)
      errors.push(...before.errors)
      await page.goto(`${origin}/?chat=${encodeURIComponent(id)}&resume=1`)
      await page.waitForFunction(() => globalThis.harness?.ready)
      await reconnected
      // The resumed response is over for the page when useChat calls onFinish.
      await page.waitForFunction(() => harness.finishes.length > 0, null, { timeout: 30_000 })
      await settled()
    } else {
      await sending
    }
    if (run === 'killed' && t === cutTurn) {
      const broken = await settled()
      assert.equal(broken.status, 'error', 'the connection dropped')
      assert.ok(broken.finishes.at(-1)?.isDisconnect, 'useChat saw a disconnect')
      await page.evaluate(() => harness.chat.resumeStream())
    }
  }
  const got = await settled()
  const allowed = run === 'killed' ? 1 : 0
  return {
    got: stripPartIds(got.messages),
    expected,
    statuses: [...statuses, ...got.statuses],
    errors: [...errors, ...got.errors],
    logged: [...logged],
    allowed,
    format,
    turns: turns.length,
    // The responses written whole in this process that do not end with the marker.
    unmarked: chat.bodies.filter((body) => !body.endsWith('data: [DONE]\n\n')),
  }
}

/** The page's state without waiting (the page is about to go away). */
async function settledOrNot() {
  return page.evaluate(() => JSON.parse(JSON.stringify({ statuses: harness.statuses, errors: harness.errors })))
}

/** A number of the file's name: each recording's seeds stay as they are when the list grows. */
const laneOf = (file) => [...file].reduce((hash, c) => Math.imul(hash ^ c.charCodeAt(0), 0x01000193) >>> 0, 0x811c9dc5)

for (const file of RECORDINGS) {
  for (const [r, run] of RUNS.entries()) {
    const seed = deriveSeed(SEED, laneOf(file) + r)
    test(`useChat shows what a reload shows: ${file}, ${run} (seed ${seed})`, { timeout: 60_000 }, async () => {
      let outcome
      try {
        outcome = await runOne(file, run, seed)
      } catch (error) {
        results.push({ file, run, shown: false })
        throw error
      }
      const { got, expected, statuses, errors, logged: consoleErrors, allowed } = outcome
      const failures = statuses.filter((s) => s === 'error').length
      const shown = JSON.stringify(got) === JSON.stringify(expected) || isDeepEqual(got, expected)
      const clean = failures === allowed && errors.length === allowed && consoleErrors.length <= allowed
      results.push({ file, run, shown: shown && clean })
      assert.deepEqual(got, expected, `${file} ${run}: the page's messages are not the reload's (seed ${seed})`)
      assert.equal(failures, allowed, `statuses ${statuses.join(' → ')}; errors: ${errors.join(' | ')}`)
      assert.equal(errors.length, allowed, `errors: ${errors.join(' | ')}`)
      assert.ok(consoleErrors.length <= allowed, `console: ${consoleErrors.join(' | ')}`)
      if (allowed) assert.match(errors[0], /network|fetch|load failed/i)
      assert.deepEqual(outcome.unmarked, [], 'every response ends with data: [DONE]')
    })
  }
}

function isDeepEqual(a, b) {
  try {
    assert.deepEqual(a, b)
    return true
  } catch {
    return false
  }
}
