// The options of readHistory, loadHistory, loadHistorySync and foldStream under hostile
// but legal use: an option no reader of the format takes, Proxies and getters that throw,
// change between reads or abort the signal, and workers that end inside a getter or are
// terminated while a load reads its options. Each is read once, refused by name or thrown
// as the caller's own error; nothing crashes.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'

import { foldStream, loadHistory, loadHistorySync, readHistory } from '../index.js'
import { run } from './cli-helpers.mjs'

const example = (name) => readFileSync(new URL(`../examples/${name}`, import.meta.url))
const pi = example('pi-session.jsonl')
const claude = example('claude-code-session.jsonl')
const stream = example('ai-sdk-stream.sse')
const addon = new URL('../index.js', import.meta.url).pathname

test('a leaf given for a format without leaves is refused, not passed over', async () => {
  // Before, a Claude transcript (which has branches) read with a leaf gave its current
  // branch as if it were the one asked for.
  const refusal = (what, format) => ({ name: 'Error', message: `${what}: ${format} history, a leaf ("a1") chooses a branch of a pi session only; ${format} is read without one` })
  assert.throws(() => readHistory(claude, { leaf: 'a1' }), refusal('readHistory', 'claude'))
  assert.throws(() => loadHistorySync(claude, 'claude', { leaf: 'a1' }), refusal('loadHistorySync', 'claude'))
  await assert.rejects(loadHistory(claude, 'claude', { leaf: 'a1' }), refusal('loadHistory', 'claude'))
  assert.throws(() => readHistory(stream, { leaf: 'a1' }), refusal('readHistory', 'ai-sdk'))
  assert.throws(() => foldStream(stream, { leaf: 'a1' }), { name: 'Error', message: 'foldStream: a leaf ("a1") chooses a branch of a pi session only; ai-sdk is read without one' })
  // A pi session takes it; without a leaf every format reads as before.
  assert.throws(() => readHistory(pi, { leaf: 'a1' }), /pi history, the session has no entry with id "a1" \(leaf\)/)
  assert.equal(readHistory(claude).format, 'claude')
  const cli = await run(['replay', 'examples/ai-sdk-stream.sse', '--leaf', 'a1'])
  assert.equal(cli.code, 2)
  assert.equal(cli.stderr, 'examples/ai-sdk-stream.sse: a leaf ("a1") chooses a branch of a pi session only; ai-sdk is read without one\n')
})

test('each option is read once, so a getter that changes between reads cannot split a call', async () => {
  const calls = [
    ['readHistory', (options) => readHistory(pi, options), ['format', 'strict', 'leaf', 'session', 'view']],
    ['loadHistorySync', (options) => loadHistorySync(pi, 'pi', options), ['format', 'strict', 'leaf', 'session', 'view']],
    ['loadHistory', (options) => loadHistory(pi, 'pi', options), ['format', 'strict', 'leaf', 'session', 'view', 'signal']],
    ['foldStream', (options) => foldStream(stream, options), ['format', 'strict', 'leaf', 'session', 'view']],
  ]
  for (const [name, call, keys] of calls) {
    const reads = []
    let views = 0
    // A view that reads 'all' the first time and something else after.
    const options = new Proxy({}, { get: (_, key) => (reads.push(key), key === 'view' ? (views++ ? 'nonsense' : 'all') : undefined) })
    await call(options)
    assert.deepEqual(reads, keys, `${name}: every option read once`)
  }
})

test('a getter that throws is the caller\'s own error; one that aborts the signal rejects the load with its reason', async () => {
  const boom = new Error('getter says no')
  for (const call of [(o) => readHistory(pi, o), (o) => loadHistorySync(pi, 'pi', o), (o) => loadHistory(pi, 'pi', o), (o) => foldStream(stream, o)]) {
    assert.throws(() => call({ get view() { throw boom } }), (error) => error === boom)
    assert.throws(() => call(new Proxy({}, { get() { throw boom } })), (error) => error === boom)
  }
  assert.throws(() => loadHistory(pi, 'pi', { get signal() { throw boom } }), (error) => error === boom)
  const reason = new Error('aborted while the options were read')
  const controller = new AbortController()
  await assert.rejects(loadHistory(pi, 'pi', { get strict() { controller.abort(reason); return false }, signal: controller.signal }), (error) => error === reason)
  const second = new AbortController()
  await assert.rejects(loadHistory(pi, 'pi', { get signal() { second.abort(reason); return second.signal } }), (error) => error === reason)
  assert.throws(() => loadHistory(pi, 'pi', { signal: {} }), { name: 'TypeError', message: 'loadHistory: options.signal must be an AbortSignal, got another object' })
})

test('a worker that exits inside an option getter, or is terminated while a load reads its options, ends alone', async () => {
  // In a child process: a crash would end it, not the test runner.
  const script = `
    const { Worker } = require('node:worker_threads')
    const addon = ${JSON.stringify(addon)}
    const path = ${JSON.stringify(new URL('../examples/pi-session.jsonl', import.meta.url).pathname)}
    const bodies = [
      "loadHistory(path, 'pi', { get strict() { process.exit(3) } })",
      "loadHistory(path, 'pi', { get signal() { process.exit(4) } })",
      "loadHistorySync(path, 'pi', { get view() { process.exit(5) } })",
      "readHistory(require('fs').readFileSync(path), { get format() { process.exit(6) } })",
      "foldStream('{}\\\\n', { format: 'events', get strict() { process.exit(7) } })",
      "new Conversation({ format: 'events', resume: { get line() { process.exit(8) } } })",
      "new Conversation({ format: 'events' }).push({ type: 'text-delta', get delta() { process.exit(9) } })",
    ]
    const preamble = 'const { loadHistory, loadHistorySync, readHistory, foldStream, Conversation } = require(' + JSON.stringify(addon) + '); const path = ' + JSON.stringify(path) + ';'
    ;(async () => {
      const codes = []
      for (const body of bodies) {
        const worker = new Worker(preamble + body, { eval: true })
        codes.push(await new Promise((resolve) => worker.on('exit', resolve)))
      }
      let ended = 0
      for (let i = 0; i < 12; i++) {
        const worker = new Worker(preamble + "const { parentPort } = require('node:worker_threads'); loadHistory(path, 'pi', { get strict() { parentPort.postMessage('reading'); const t = Date.now(); while (Date.now() - t < 40); return false } })", { eval: true })
        worker.once('message', () => setTimeout(() => worker.terminate(), (i % 4) * 15))
        await new Promise((resolve) => worker.on('exit', resolve))
        ended++
      }
      process.stdout.write(JSON.stringify({ codes, ended }))
    })()`
  const out = await new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script], { timeout: 120_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)))
  })
  assert.deepEqual(JSON.parse(out), { codes: [3, 4, 5, 6, 7, 8, 9], ended: 12 })
})
