// The example page `examples/live-page`, bundled as an app bundles agent-chunks (the
// package's `browser` build) and opened in headless Chromium: it folds a recorded stream
// as it arrives and draws again only what each push reports as changed. It must end with
// the messages `foldStream` reads from the same file, draw each message fewer times than
// there were pushes, and the immutable view must share every message not reported.
import test from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'
import { foldStream } from 'agent-chunks'

const CHROMIUM = '/usr/bin/chromium'
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const example = join(root, 'examples', 'live-page')
const out = join(root, 'target', 'live-page-test')

assert.ok(existsSync(join(root, 'browser.mjs')), 'browser.mjs is missing: npm run build:wasm')
assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium`)

rmSync(out, { recursive: true, force: true })
const app = join(out, 'app')
mkdirSync(join(app, 'node_modules'), { recursive: true })
symlinkSync(root, join(app, 'node_modules', 'agent-chunks'), 'dir')
writeFileSync(join(app, 'main.mjs'), readFileSync(join(example, 'main.mjs')))
const site = join(out, 'site')
mkdirSync(join(site, 'live-page'), { recursive: true })
await esbuild.build({
  entryPoints: [join(app, 'main.mjs')],
  outfile: join(site, 'live-page', 'main.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  logLevel: 'error',
})
writeFileSync(join(site, 'live-page', 'index.html'), readFileSync(join(example, 'index.html')))
const recording = readFileSync(join(root, 'examples', 'agent-session.sse'))
writeFileSync(join(site, 'agent-session.sse'), recording)

const types = { '.html': 'text/html', '.js': 'text/javascript', '.sse': 'text/event-stream' }
const server = createServer((request, response) => {
  const file = join(site, new URL(request.url, 'http://page').pathname)
  if (!file.startsWith(site) || !existsSync(file)) return response.writeHead(404).end()
  const type = types[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream'
  response.writeHead(200, { 'content-type': `${type}; charset=utf-8` }).end(readFileSync(file))
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const { chromium } = await import('playwright-core')
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
const page = await browser.newPage()
const pageErrors = []
page.on('pageerror', (error) => pageErrors.push(String(error?.stack ?? error)))
await page.goto(`http://127.0.0.1:${server.address().port}/live-page/index.html`, { waitUntil: 'commit', timeout: 0 })
await page.waitForFunction(() => globalThis.liveReport, null, { timeout: 0 })
const report = await page.evaluate(() => globalThis.liveReport)
const status = await page.textContent('#status')
await browser.close()
server.close()

test('the page folds the recording live to what foldStream reads from it', () => {
  assert.deepEqual(pageErrors, [])
  assert.equal(report.failed, undefined, report.failed)
  const expected = foldStream(recording).messages
  assert.deepEqual(report.messages, expected)
  assert.equal(status, `done: ${expected.length} messages from ${report.pushes} pushes`)
  assert.ok(report.shown.includes(expected.at(-1).chunks.find((c) => c.type === 'text').text.slice(0, 20)))
})

test('each message is drawn again only when a push changed it, and unchanged ones are shared', () => {
  assert.equal(report.sharing, true)
  assert.equal(report.drawn.length, foldStream(recording).messages.length)
  const total = report.drawn.reduce((a, b) => a + b, 0)
  assert.ok(report.pushes > 100, `${report.pushes} pushes`)
  assert.ok(total < report.pushes, `${total} drawings for ${report.pushes} pushes`)
})
