// The progress bar: drawn on a terminal for inputs of 4 MiB or more, nowhere else.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

import { bin, root, run, scratch } from './cli-helpers.mjs'

const { createProgress, THRESHOLD } = createRequire(import.meta.url)('../cli/progress.js')
const tmp = scratch()

const terminal = (isTTY = true) => {
  const writes = []
  return { writes, stream: { isTTY, columns: 60, write: (text) => writes.push(text) } }
}

test('on a terminal: a bar per stage, redrawn only when the percentage changes, cleared at the end', () => {
  const { writes, stream } = terminal()
  const progress = createProgress({ size: THRESHOLD, stream })
  progress.stage('reading', 200)
  progress.update(1)
  progress.update(100)
  progress.update(101)
  progress.update(200)
  progress.stage('loading')
  progress.update(5)
  progress.end()
  assert.equal(writes.length, 5)
  assert.match(writes[0], /^\r\x1b\[2Kreading  ░+   0%$/)
  assert.match(writes[1], /^\r\x1b\[2Kreading  █+░+  50%$/)
  assert.match(writes[2], /^\r\x1b\[2Kreading  █+ 100%$/)
  assert.equal(writes[3], '\r\x1b[2Kloading  …', 'a stage that cannot be measured has no bar')
  assert.equal(writes[4], '\r\x1b[2K')
  assert.ok(writes.every((text) => text.length <= 60 + 8), 'fits the terminal')
})

test('cleared for other output, the bar is drawn again at the next update, even at the same percentage', () => {
  const { writes, stream } = terminal()
  const progress = createProgress({ size: THRESHOLD, stream })
  progress.stage('scanning', 4)
  progress.update(2)
  progress.end()
  progress.update(2)
  assert.deepEqual(writes.slice(-2).map((text) => text.replace(/[█░]+/, 'BAR')), ['\r\x1b[2K', '\r\x1b[2Kscanning BAR  50%'])
})

test('no bar off a terminal or for a small input', () => {
  for (const [isTTY, size] of [[false, THRESHOLD * 2], [true, THRESHOLD - 1]]) {
    const { writes, stream } = terminal(isTTY)
    const progress = createProgress({ size, stream })
    progress.stage('reading', size)
    progress.update(size)
    progress.end()
    assert.deepEqual(writes, [])
  }
})

const noScript = !existsSync('/usr/bin/script') && 'no script(1) to give the command a terminal'

test('the command draws it on a terminal for a big input, and not when stderr is a pipe', { skip: noScript }, async () => {
  const turn = readFileSync(new URL('../examples/pi-session.stream.ndjson', import.meta.url), 'utf8')
  const big = tmp.file('big.ndjson', turn.repeat(Math.ceil(THRESHOLD / turn.length)))
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} convert ${JSON.stringify(big)} --to events -o ${JSON.stringify(tmp.path('out.ndjson'))}`
  const screen = await new Promise((resolve, reject) => {
    execFile('script', ['-qec', command, '/dev/null'], { cwd: root, encoding: 'utf8' }, (error, stdout) => (error ? reject(error) : resolve(stdout)))
  })
  assert.match(screen, /\r\x1b\[2Kreading  [█░]+ +0%/)
  assert.match(screen, /\r\x1b\[2Kfolding  █+ 100%/)
  assert.ok(screen.endsWith('\r\x1b[2K'), 'the bar is cleared at the end')
  const piped = await run(['convert', big, '--to', 'events', '-o', tmp.path('out2.ndjson')])
  assert.equal(piped.code, 0)
  assert.equal(piped.stderr, '')
})
