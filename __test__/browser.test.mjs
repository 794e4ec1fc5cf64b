// The WebAssembly build in headless Chromium. Two bundles are made with esbuild, as an
// Electron renderer's or a web page's code is bundled:
// - an app (`browser/app.mjs`) in a project that has agent-chunks in its node_modules,
//   bundled with no option for it: the package's `browser` condition picks the build
//   (Vite, electron-vite and webpack bundle it too, each page run and compared);
// - the differential and bytes-path test files, unchanged, with `node:test`,
//   `node:assert` and the few Node helpers they use made of the page's own parts.
// Both run in one page served over HTTP; the page has no `process` and no `require`.
// A second page is served with the Content Security Policy of a hardened Electron
// renderer, `script-src 'self' 'wasm-unsafe-eval'`, which forbids code from text: an app
// (`browser/csp.mjs`) and the hostile-caller suite run there.
import test from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const CHROMIUM = '/usr/bin/chromium'
const CSP = "script-src 'self' 'wasm-unsafe-eval'"
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const here = join(root, '__test__', 'browser')
const out = join(root, 'target', 'browser-test')

assert.ok(existsSync(join(root, 'browser.mjs')), 'browser.mjs is missing: npm run build:wasm')
assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium`)

rmSync(out, { recursive: true, force: true })
const app = join(out, 'app')
mkdirSync(join(app, 'node_modules'), { recursive: true })
symlinkSync(root, join(app, 'node_modules', 'agent-chunks'), 'dir')
writeFileSync(join(app, 'main.mjs'), readFileSync(join(here, 'app.mjs')))
writeFileSync(join(app, 'csp.mjs'), readFileSync(join(here, 'csp.mjs')))
writeFileSync(join(app, 'ag-ui.mjs'), readFileSync(join(here, 'ag-ui.mjs')))

const shim = (name) => join(here, name)
const appBuild = await esbuild.build({
  entryPoints: [join(app, 'main.mjs')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  logLevel: 'error',
  metafile: true,
})
await esbuild.build({
  entryPoints: [join(app, 'csp.mjs')],
  outfile: join(out, 'csp.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  logLevel: 'error',
})
// A CopilotKit-style page: @ag-ui/client and agent-chunks in one bundle.
await esbuild.build({
  entryPoints: [join(app, 'ag-ui.mjs')],
  outfile: join(out, 'ag-ui.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  logLevel: 'error',
})
// The same app as the other bundlers build it, each with its defaults for a browser build:
// what they pick from the package (the `browser` condition) must build and run alike.
writeFileSync(join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.mjs"></script>')
const bundlers = {
  async vite() {
    const { build } = await import('vite')
    await build({ root: app, base: './', configFile: false, logLevel: 'error', build: { outDir: join(out, 'vite'), emptyOutDir: true } })
    return 'vite/index.html'
  },
  // An Electron renderer, as electron-vite builds one (its own defaults over Vite's: the
  // Chrome of the Electron it targets). Electron itself is not installed (its install
  // downloads a binary), so its major version is named as electron-vite lets one name it.
  async 'electron-vite'() {
    const { build } = await import('electron-vite')
    process.env.ELECTRON_MAJOR_VER ??= '44'
    const renderer = join(out, 'electron-vite')
    writeFileSync(
      join(app, 'electron.vite.config.mjs'),
      `export default { renderer: { root: ${JSON.stringify(app)}, base: './', logLevel: 'error', build: { outDir: ${JSON.stringify(renderer)}, emptyOutDir: true, rollupOptions: { input: ${JSON.stringify(join(app, 'index.html'))} } } } }\n`,
    )
    await build({ root: app, configFile: join(app, 'electron.vite.config.mjs'), logLevel: 'error' })
    return 'electron-vite/index.html'
  },
  async webpack() {
    const { default: webpack } = await import('webpack')
    // Production mode without the minifier: terser over the inlined module is slow, and
    // what is bundled is the point.
    const compiler = webpack({
      mode: 'production',
      target: 'web',
      context: app,
      entry: join(app, 'main.mjs'),
      output: { path: join(out, 'webpack'), filename: 'app.js' },
      optimization: { minimize: false },
      performance: { hints: false },
    })
    const stats = await new Promise((resolve, reject) => compiler.run((error, stats) => (error ? reject(error) : resolve(stats))))
    await new Promise((resolve) => compiler.close(resolve))
    if (stats.hasErrors()) throw new Error(stats.toString('errors-only'))
    writeFileSync(join(out, 'webpack', 'index.html'), '<!doctype html><meta charset="utf-8"><script src="app.js"></script>')
    return 'webpack/index.html'
  },
}
const bundled = {}
for (const [name, bundle] of Object.entries(bundlers)) {
  try {
    bundled[name] = { page: await bundle() }
  } catch (error) {
    bundled[name] = { error: String(error?.stack ?? error) }
  }
}

const suite = (name) => esbuild.build({
  entryPoints: [join(here, `${name}.mjs`)],
  outfile: join(out, `${name}.js`),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  logLevel: 'error',
  alias: {
    'node:test': shim('node-test-api.mjs'),
    'node:assert/strict': shim('node-assert.mjs'),
    'node:util': shim('node-util.mjs'),
    'node:crypto': shim('node-builtins.mjs'),
    'node:v8': shim('node-builtins.mjs'),
    'node:vm': shim('node-builtins.mjs'),
    'node:fs': shim('node-builtins.mjs'),
  },
  inject: [shim('node-builtins.mjs')],
  define: {
    'process.env.DIFF_AGAINST': 'undefined',
    'process.env.DIFF_CASES': 'undefined',
    'process.env.DIFF_SEED': 'undefined',
  },
})
await suite('suite')
await suite('csp-suite')
writeFileSync(
  join(out, 'csp.html'),
  '<!doctype html><meta charset="utf-8"><title>agent-chunks under a CSP</title>' +
    '<script type="module" src="csp.js"></script><script type="module" src="csp-suite.js"></script>',
)
writeFileSync(
  join(out, 'ag-ui.html'),
  '<!doctype html><meta charset="utf-8"><title>agent-chunks and AG-UI</title><script type="module" src="ag-ui.js"></script>',
)
writeFileSync(
  join(out, 'index.html'),
  '<!doctype html><meta charset="utf-8"><title>agent-chunks</title>' +
    '<script type="module" src="app.js"></script><script type="module" src="suite.js"></script>',
)

const server = createServer((request, response) => {
  const file = join(out, new URL(request.url, 'http://page').pathname)
  if (!file.startsWith(out) || !existsSync(file)) return response.writeHead(404).end()
  const type = file.endsWith('.html') ? 'text/html' : 'text/javascript'
  const headers = { 'content-type': `${type}; charset=utf-8` }
  if (file.endsWith('csp.html')) headers['content-security-policy'] = CSP
  response.writeHead(200, headers).end(readFileSync(file))
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))

const { chromium } = await import('playwright-core')
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--js-flags=--expose-gc',
  ],
})
const page = await browser.newPage()
const pageErrors = []
page.on('pageerror', (error) => pageErrors.push(String(error?.stack ?? error)))
await page.goto(`http://127.0.0.1:${server.address().port}/index.html`, { waitUntil: 'commit', timeout: 0 })
await page.waitForFunction(() => globalThis.appReport && globalThis.suiteDone, null, { timeout: 0 })
const globals = await page.evaluate(() => ({
  process: typeof process,
  require: typeof require,
  module: typeof module,
  Buffer: typeof Buffer,
  setImmediate: typeof setImmediate,
}))
const report = await page.evaluate(() => globalThis.appReport)
await page.evaluate(() => globalThis.suiteDone)
const results = await page.evaluate(() => globalThis.suiteResults)

const cspPage = await browser.newPage()
const cspPageErrors = []
cspPage.on('pageerror', (error) => cspPageErrors.push(String(error?.stack ?? error)))
const cspResponse = await cspPage.goto(`http://127.0.0.1:${server.address().port}/csp.html`, { waitUntil: 'commit', timeout: 0 })
const cspHeader = (await cspResponse.allHeaders())['content-security-policy']
await cspPage.waitForFunction(() => globalThis.cspReport && globalThis.cspSuiteDone, null, { timeout: 0 })
const cspReport = await cspPage.evaluate(() => globalThis.cspReport)
await cspPage.evaluate(() => globalThis.cspSuiteDone)
const cspResults = await cspPage.evaluate(() => globalThis.cspSuiteResults)
const aguiPage = await browser.newPage()
const aguiPageErrors = []
aguiPage.on('pageerror', (error) => aguiPageErrors.push(String(error?.stack ?? error)))
await aguiPage.goto(`http://127.0.0.1:${server.address().port}/ag-ui.html`, { waitUntil: 'commit', timeout: 0 })
await aguiPage.waitForFunction(() => globalThis.aguiReport, null, { timeout: 0 })
const agui = await aguiPage.evaluate(() => globalThis.aguiReport)
for (const [name, built] of Object.entries(bundled)) {
  if (!built.page) continue
  const bundlerPage = await browser.newPage()
  built.errors = []
  bundlerPage.on('pageerror', (error) => built.errors.push(String(error?.stack ?? error)))
  await bundlerPage.goto(`http://127.0.0.1:${server.address().port}/${built.page}`, { waitUntil: 'commit', timeout: 0 })
  await bundlerPage.waitForFunction(() => globalThis.appReport, null, { timeout: 0 })
  built.report = await bundlerPage.evaluate(() => globalThis.appReport)
  await bundlerPage.close()
}
await browser.close()
server.close()

test('bundlers resolve the package to the WebAssembly build, Node to the native addon', async () => {
  const bundled = Object.keys(appBuild.metafile.inputs).map((path) => path.split('/').pop())
  assert.ok(bundled.includes('browser.mjs'), bundled.join(', '))
  assert.ok(!bundled.includes('index.js'), bundled.join(', '))
  assert.equal(import.meta.resolve('agent-chunks'), new URL('../index.js', import.meta.url).href)
  const native = (await import('agent-chunks')).default
  assert.equal(native.__napiBindingTarget, 'native')
})

test('the app imports __napiBindingTarget, and the WebAssembly build says it is the one loaded', () => {
  assert.equal(report.target, 'wasm32-wasip1')
})

for (const name of Object.keys(bundlers)) {
  test(`${name} bundles the app with its defaults, and it runs as esbuild's bundle does`, () => {
    const built = bundled[name]
    assert.equal(built.error, undefined, built.error)
    assert.deepEqual(built.errors, [])
    assert.equal(built.report.failed, undefined, built.report.failed)
    assert.deepEqual(built.report, report)
  })
}

test('the page is a browser page: no process, require, module, Buffer or setImmediate', () => {
  assert.deepEqual(globals, { process: 'undefined', require: 'undefined', module: 'undefined', Buffer: 'undefined', setImmediate: 'undefined' })
  assert.deepEqual(pageErrors, [])
})

test('a renderer bundle of agent-chunks: the drop-in mutates in place, bytes and history load', () => {
  assert.equal(report.failed, undefined, report.failed)
  assert.deepEqual(report.chunks, [
    { type: 'text', text: 'Hello \u{1F600}' },
    { type: 'tool-batch', calls: [{ id: 't1', name: 'bash', arguments: { cmd: 'ls' } }] },
  ])
  assert.equal(report.sameFirstChunk, true, 'the open chunk is extended where it is')
  assert.equal(report.mechanics, true, 'without a policy against eval, the compiled mechanics write')
  assert.equal(report.argumentsByReference, true, 'arguments are stored by reference')
  assert.deepEqual(report.typeError, {
    name: 'TypeError',
    message: 'appendEventToChunks: text-delta event: "delta" must be a string, got number',
  })
  assert.deepEqual(report.system, { messageId: 'sys-1' })
  assert.deepEqual(report.messages[1], { id: 'sys-1', role: 'system', chunks: [{ type: 'system', kind: 'notice', text: 'hi' }] })
  assert.deepEqual(report.streamed, [{ type: 'text', text: 'ab' }])
  assert.deepEqual(report.reduced, [{ type: 'text', text: 'ab' }])
  assert.equal(report.loaded.length, 1)
  assert.deepEqual(report.loaded[0].chunks, [{ type: 'text', text: 'x' }])
  assert.equal(report.pathError.name, 'TypeError')
  assert.match(report.pathError.message, /^loadHistorySync: source is a file path, and a file path cannot be read in the browser; pass the file's bytes/)
})

test('under a Content Security Policy that forbids eval: the drop-in works, refused writes throw, data unchanged', () => {
  assert.equal(cspHeader, CSP)
  assert.deepEqual(cspPageErrors, [])
  assert.equal(cspReport.failed, undefined, cspReport.failed)
  assert.equal(cspReport.evalRefused, 'EvalError', 'the policy is in force')
  assert.equal(cspReport.mechanics, false, 'the drop-in writes through the built-ins')
  assert.deepEqual(cspReport.chunks, [
    { type: 'text', text: 'Hello' },
    { type: 'tool-batch', calls: [{ id: 't1', name: 'bash', arguments: { cmd: 'ls' }, result: 'ok', isError: false }] },
  ])
  assert.deepEqual(cspReport.system, { messageId: 'sys-1' })
  assert.deepEqual(cspReport.messages[1], { id: 'sys-1', role: 'system', chunks: [{ type: 'system', kind: 'notice', text: 'hi' }] })
  // V8's own TypeErrors, as the helper's strict-mode writes throw them.
  const refusal = (message) => ({ name: 'TypeError', message })
  assert.deepEqual(cspReport.refused, {
    frozenArray: refusal('Cannot add property 0, object is not extensible'),
    frozenChunk: refusal("Cannot assign to read only property 'text' of object '#<Object>'"),
    readOnlyText: refusal("Cannot assign to read only property 'text' of object '#<Object>'"),
    refusingProxy: refusal("'set' on proxy: trap returned falsish for property '1'"),
    lengthRefused: refusal("'set' on proxy: trap returned falsish for property 'length'"),
    sealedEntry: refusal('Cannot add property isError, object is not extensible'),
    frozenMessages: refusal('Cannot add property 1, object is not extensible'),
  })
  assert.deepEqual(cspReport.after, {
    frozenArray: [],
    frozenChunk: [{ type: 'text', text: 'a' }],
    readOnlyText: [{ type: 'text', text: 'a' }],
    refusing: [{ type: 'text', text: 'a' }],
    lengthRefused: { first: { type: 'text', text: 'a' }, second: false },
    observed: { pushes: 1, length: 2 },
    entry: { id: 't1', name: 'bash', arguments: {}, result: 'before' },
    frozenMessages: [{ id: 'u', role: 'user', chunks: [] }],
  })
  assert.equal(cspReport.observedOutcome, 'returned')
})

test('the hostile-caller suite ran in the page with the policy', () => {
  assert.ok(cspResults.length >= 14, `${cspResults.length} results`)
})

for (const result of cspResults) {
  test(`in Chromium, under the policy: ${result.name}`, { skip: result.skipped }, () => {
    assert.ok(result.ok, result.error)
  })
}

test('a Rust panic traps: a RuntimeError, and the page goes on', () => {
  assert.deepEqual(report.panic, { name: 'RuntimeError', message: 'unreachable' })
  assert.deepEqual(report.afterPanic, [{ type: 'text', text: 'still here' }])
})

test('the differential and bytes-path suites ran in the page', () => {
  assert.ok(results.length >= 12, `${results.length} results`)
})

for (const result of results) {
  test(`in Chromium: ${result.name}`, { skip: result.skipped }, () => {
    assert.ok(result.ok, result.error)
  })
}

test('a CopilotKit-style page: AG-UI read by agent-chunks as the client reads it, and written for the client from a live conversation', () => {
  assert.deepEqual(aguiPageErrors, [])
  assert.equal(agui.failed, undefined, agui.failed)
  // In: the SSE split anywhere, as @ag-ui/client ends with the same events.
  assert.equal(agui.read.theirs.length, 5)
  assert.deepEqual(agui.read.ours, agui.read.theirs)
  assert.deepEqual(agui.read.skipped.kinds, { STATE_SNAPSHOT: 1 })
  // Out: after every push, the client holds what agUi.fromMessages says of the conversation
  // (the turn, written at once while empty, is restated when its first chunk is thinking).
  agui.steps.forEach(({ ours, theirs }, i) => assert.deepEqual(theirs, ours, `after event ${i + 1}`))
  assert.deepEqual(agui.final.theirs, agui.final.ours)
  assert.deepEqual(agui.back.fromClient, agui.back.conversation, 'agUi.toMessages of what the client holds is the conversation')
  assert.ok(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'REASONING_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TOOL_CALL_RESULT', 'ACTIVITY_SNAPSHOT', 'RUN_ERROR', 'RUN_FINISHED'].every((t) => agui.types.includes(t)), agui.types.join(', '))
  assert.deepEqual(agui.typeError, {
    name: 'TypeError',
    message: 'Conversation.toAGUIEvents: options.threadId must be a string: the first call names the run (threadId and runId of the request)',
  })
})
