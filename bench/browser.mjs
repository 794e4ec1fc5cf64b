// Browser rows of `npm run bench`: the WebAssembly build (browser.mjs) in Node against
// the native addon, and in headless Chromium against the plain-JS baseline, in one page.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import * as esbuild from 'esbuild'

const CHROMIUM = '/usr/bin/chromium'
const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * `measurePair(a, b)` is the Node bench's (medians of samples taken in turn); `turns` the
 * realistic turns and `ndjson` the recorded events it times natively.
 */
export async function runBrowserCases({ native, turns, ndjson, settings, measurePair, printTable, ratio }) {
  const module = join(root, 'browser.mjs')
  if (!existsSync(module)) {
    console.log('\nbrowser.mjs is missing: `npm run build:wasm` for the WebAssembly rows.')
    process.exitCode = 1
    return
  }
  const wasm = (await import(pathToFileURL(module).href)).default
  const turnEvents = turns.reduce((sum, events) => sum + events.length, 0)
  const foldTurns = (append) => {
    for (const events of turns) {
      const chunks = []
      for (const event of events) append(chunks, event)
    }
  }
  const inNode = measurePair(() => foldTurns(wasm.appendEventToChunks), () => foldTurns(native.appendEventToChunks))
  const nativeNs = inNode.js / turnEvents
  const ns = (value) => value.toFixed(1)
  printTable(
    'WebAssembly build in Node (browser.mjs), ns per event',
    ['case', 'events/run', 'wasm ns', 'native ns', 'wasm/native'],
    [[`drop-in, realistic turns (${turns.length} turns)`, turnEvents, ns(inNode.native / turnEvents), ns(nativeNs), ratio(inNode.ratio)]],
  )

  if (!existsSync(CHROMIUM)) {
    console.log(`\nNo Chromium at ${CHROMIUM} (apt-get install chromium): no Chromium rows.`)
    process.exitCode = 1
    return
  }
  const out = join(root, 'target', 'bench-browser')
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  await esbuild.build({
    entryPoints: [join(root, 'bench', 'browser-page.mjs')],
    outfile: join(out, 'page.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    logLevel: 'error',
    alias: { 'node:crypto': join(root, '__test__', 'browser', 'node-builtins.mjs') },
  })
  const { createServer } = await import('node:http')
  const { readFileSync } = await import('node:fs')
  writeFileSync(join(out, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="page.js"></script>')
  const server = createServer((request, response) => {
    const file = join(out, new URL(request.url, 'http://page').pathname)
    if (!file.startsWith(out) || !existsSync(file)) return response.writeHead(404).end()
    response.writeHead(200, { 'content-type': file.endsWith('.html') ? 'text/html' : 'text/javascript' }).end(readFileSync(file))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--js-flags=--expose-gc'],
  })
  try {
    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`, { timeout: 0 })
    await page.waitForFunction(() => typeof globalThis.benchInBrowser === 'function', null, { timeout: 0 })
    const { warmups, runs, minSampleMs } = settings
    const result = await page.evaluate((input) => globalThis.benchInBrowser(input), {
      turnsJson: JSON.stringify(turns),
      ndjson,
      settings: { warmups, runs, minSampleMs },
    })
    const version = /Chrome\/([\d.]+)/.exec(result.userAgent)?.[1] ?? 'unknown'
    printTable(
      `Chromium ${version} (WebAssembly build, one page), ns per event`,
      ['case', 'events/run', 'wasm ns', 'baseline ns', 'wasm/baseline', 'wasm/native in Node'],
      result.rows.map((row, i) => [
        row.name, row.events, ns(row.wasm / row.events), ns(row.js / row.events), ratio(row.ratio),
        i === 0 ? ratio(row.wasm / row.events / nativeNs) : '',
      ]),
    )
    console.log('baseline: the plain-JS reducer; for bytes, TextDecoder + JSON.parse per line + the reducer (+ JSON.stringify for JSON out).')
    if (result.same !== true) {
      console.log(`\nWARNING: the WebAssembly build and the baseline disagree in Chromium (${result.same}); the timings compare different work.`)
      process.exitCode = 1
    }
  } finally {
    await browser.close()
    server.close()
  }
}
