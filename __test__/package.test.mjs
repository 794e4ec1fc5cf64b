// The package as its users install it. The main package, this platform's package (made
// from this build as the release makes it: `npm/<platform>/` from `napi create-npm-dirs`
// unless the repository has its own) and the WebAssembly fallback `agent-chunks-wasm32-wasi`
// are packed with `npm pack`, installed from the tarballs into a fresh project with
// `npm install --offline` (nothing from a registry) and no `cargo` or compiler on the
// PATH, and used from CommonJS, from ES modules with named imports, from TypeScript
// (`node16`, `nodenext` and `bundler` resolution, with and without @types/node), from an
// esbuild browser bundle and through `npx agent-chunks`. Then the native binary is broken,
// and then its package removed, as on a platform with no package: the same programs load
// the WebAssembly build, print one line of warning, and give the same results.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const work = join(root, 'target', 'pack-test')
const npmCli = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js')
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
const HOST = 'linux-x64-gnu'

for (const file of ['browser.mjs', `agent-chunks.${HOST}.node`, 'agent-chunks.wasi.cjs', 'agent-chunks.wasm32-wasi.wasm']) {
  assert.ok(existsSync(join(root, file)), `${file} is missing: npm run build and npm run build:wasm`)
}

// A PATH with node and a shell and nothing else: no cargo, no cc, no git.
const bin = join(work, 'bin')
const project = join(work, 'project')
const ENV = { HOME: process.env.HOME, PATH: bin, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }

function run(command, args, { cwd = project, env = {}, ok = true } = {}) {
  const result = spawnSync(command, args, { cwd, env: { ...ENV, ...env }, encoding: 'utf8', timeout: 300_000 })
  if (ok && result.status !== 0) {
    assert.fail(`${[command, ...args].join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`)
  }
  return result
}
const npm = (args, options) => run(process.execPath, [npmCli, ...args], options)

function pack(dir) {
  const out = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', join(work, 'tarballs')], { cwd: dir })
  return join(work, 'tarballs', JSON.parse(out.stdout)[0].filename)
}

// The program every flavour of consumer runs: results that must not depend on the
// binding, and the binding that gave them.
const BODY = `
const events = readFileSync(EXAMPLES + '/demo-stream.ndjson', 'utf8').split('\\n').filter(Boolean).map((l) => JSON.parse(l))
const chunks = []
for (const event of events) appendEventToChunks(chunks, event)
const messages = []
applySystemEvent(messages, { kind: 'notice', text: 'n' }, () => 'id-1')
const stream = new ChunkStream()
stream.push(readFileSync(EXAMPLES + '/demo-stream.ndjson'))
stream.end()
let missing
try { loadHistorySync(EXAMPLES + '/no-such-file.jsonl', 'pi') } catch (error) { missing = [error.message, error.code] }
let badFormat
try { loadHistorySync(EXAMPLES + '/no-such-file.jsonl', 'yaml') } catch (error) { badFormat = [error.constructor.name, error.message] }
const results = {
  chunks,
  messages,
  stream: stream.toJsonString(),
  reduced: reduceEvents(readFileSync(EXAMPLES + '/demo-stream.ndjson')),
  fromPath: loadHistorySync(EXAMPLES + '/pi-session.jsonl', 'pi'),
  fromPathAsync: await loadHistory(EXAMPLES + '/pi-session.jsonl', 'pi'),
  missing,
  badFormat,
  formats: formats().map((format) => format.name),
}
process.stdout.write(JSON.stringify({ target: __napiBindingTarget, results }))
`
const NAMES = 'appendEventToChunks, applySystemEvent, ChunkStream, formats, loadHistory, loadHistorySync, reduceEvents, __napiBindingTarget'
const CJS = `const { ${NAMES} } = require('agent-chunks')
const { readFileSync } = require('node:fs')
const EXAMPLES = ${JSON.stringify(join(root, 'examples'))}
;(async () => {${BODY}})()
`
const ESM = `import { ${NAMES} } from 'agent-chunks'
import { readFileSync } from 'node:fs'
const EXAMPLES = ${JSON.stringify(join(root, 'examples'))}
${BODY}`

// A consumer written against the helper's types, and one using the readers' wider model.
const TS = `import { appendEventToChunks, loadHistorySync, type AgentEvent, type Chunk, type HistoryChunk } from 'agent-chunks'
export function render(chunk: Chunk): string {
  switch (chunk.type) {
    case 'text':
    case 'thinking':
      return chunk.text
    case 'tool-batch':
      return chunk.calls.map((call) => call.name).join(', ')
    case 'error':
      return chunk.message
    case 'system':
      return chunk.kind
  }
}
export function isFile(chunk: HistoryChunk): boolean {
  return chunk.type === 'file'
}
const chunks: Chunk[] = []
const event: AgentEvent = { type: 'text-delta', delta: 'a' }
appendEventToChunks(chunks, event)
export const history = loadHistorySync(new Uint8Array(0), 'pi').flatMap((message) => message.chunks.filter(isFile))
`
const TSCONFIGS = {
  'node16-types-node': { module: 'Node16', moduleResolution: 'Node16', types: ['node'], lib: ['ES2022'] },
  'nodenext-no-types': { module: 'NodeNext', moduleResolution: 'NodeNext', types: [], lib: ['ES2022'] },
  'bundler-no-types': { module: 'ESNext', moduleResolution: 'Bundler', types: [], lib: ['ES2022', 'DOM'] },
  'bundler-types-node': { module: 'ESNext', moduleResolution: 'Bundler', types: ['node'], lib: ['ES2022'] },
}

let native
let replayed

test('packed and installed offline with no compiler on the PATH', () => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(bin, { recursive: true })
  mkdirSync(project, { recursive: true })
  mkdirSync(join(work, 'tarballs'))
  symlinkSync(process.execPath, join(bin, 'node'))
  // npx runs a package's command through a shell.
  symlinkSync('/bin/sh', join(bin, 'sh'))

  // This platform's package, as the release makes it from the build.
  let platformDir = join(root, 'npm', HOST)
  if (!existsSync(join(platformDir, 'package.json'))) {
    run(process.execPath, [join(root, 'node_modules', '@napi-rs', 'cli', 'cli.mjs'), 'create-npm-dirs', '--npm-dir', 'target/pack-test/npm'], { cwd: root, env: { PATH: process.env.PATH } })
    platformDir = join(work, 'npm', HOST)
  } else {
    cpSync(platformDir, join(work, 'npm', HOST), { recursive: true })
    platformDir = join(work, 'npm', HOST)
  }
  cpSync(join(root, `agent-chunks.${HOST}.node`), join(platformDir, `agent-chunks.${HOST}.node`))

  // The package's own dependencies come packed from this checkout's node_modules, as a
  // registry would serve them: nothing is fetched.
  const dependencies = npm(['ls', '--omit=dev', '--omit=optional', '--all', '--parseable'], { cwd: root, ok: false })
    .stdout.split('\n')
    .filter((path) => path.includes('node_modules'))
  assert.ok(dependencies.some((path) => path.endsWith('markdown-it')), dependencies.join('\n'))
  const tarballs = [pack(root), pack(platformDir), pack(join(root, 'npm', 'wasm32-wasi')), ...dependencies.map(pack)]
  // The main package holds no binary of any platform: they come in their packages.
  const listed = JSON.parse(npm(['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: root }).stdout)[0].files.map((f) => f.path)
  assert.deepEqual(listed.filter((path) => path.endsWith('.node') || path.endsWith('.wasm')), [])
  assert.ok(listed.includes('browser.mjs'))

  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
  npm(['install', '--offline', '--no-audit', '--no-fund', ...tarballs])
  assert.ok(existsSync(join(project, 'node_modules', 'agent-chunks', 'index.js')))
  assert.ok(existsSync(join(project, 'node_modules', `agent-chunks-${HOST}`)))
  assert.ok(existsSync(join(project, 'node_modules', 'agent-chunks-wasm32-wasi', 'agent-chunks.wasm32-wasi.wasm')))
  for (const tool of ['cargo', 'cc', 'gcc', 'rustc']) {
    assert.notEqual(run('node', ['-e', `require('child_process').execFileSync(${JSON.stringify(tool)})`], { ok: false }).status, 0)
  }
  writeFileSync(join(project, 'use.cjs'), CJS)
  writeFileSync(join(project, 'use.mjs'), ESM)
})

function use(file, env) {
  const result = run('node', [file], { env })
  return { ...JSON.parse(result.stdout), stderr: result.stderr }
}

test('CommonJS and ES modules with named imports load the native addon', () => {
  const cjs = use('use.cjs')
  const esm = use('use.mjs')
  assert.equal(cjs.target, 'native')
  assert.equal(esm.target, 'native')
  assert.equal(cjs.stderr, '')
  assert.deepEqual(esm.results, cjs.results)
  assert.ok(cjs.results.chunks.length > 3)
  assert.ok(cjs.results.fromPath.length > 1)
  assert.deepEqual(cjs.results.fromPathAsync, cjs.results.fromPath)
  assert.equal(cjs.results.missing[1], 'ENOENT')
  assert.equal(cjs.results.badFormat[0], 'TypeError')
  native = cjs.results
})

test('TypeScript: node16, nodenext and bundler resolution, with and without @types/node', () => {
  writeFileSync(join(project, 'consumer.mts'), TS)
  writeFileSync(join(project, 'consumer.ts'), TS)
  for (const [name, options] of Object.entries(TSCONFIGS)) {
    const bundler = options.moduleResolution === 'Bundler'
    writeFileSync(
      join(project, `tsconfig.${name}.json`),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', skipLibCheck: false, typeRoots: [join(root, 'node_modules', '@types')], ...options },
        files: [bundler ? 'consumer.ts' : 'consumer.mts'],
      }),
    )
    const result = run('node', [tsc, '-p', `tsconfig.${name}.json`], { ok: false })
    assert.equal(result.status, 0, `${name}:\n${result.stdout}${result.stderr}`)
  }
})

test('an esbuild browser bundle takes the WebAssembly module, not the native loader', async () => {
  writeFileSync(join(project, 'page.mjs'), `import { appendEventToChunks, reduceEvents } from 'agent-chunks'
const chunks = []
appendEventToChunks(chunks, { type: 'text-delta', delta: 'a' })
appendEventToChunks(chunks, { type: 'text-delta', delta: 'b' })
export const result = { chunks, reduced: reduceEvents('{"type":"text-delta","delta":"c"}\\n') }
`)
  const built = await esbuild.build({
    entryPoints: [join(project, 'page.mjs')],
    outfile: join(project, 'dist', 'page.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    logLevel: 'error',
    metafile: true,
  })
  const inputs = Object.keys(built.metafile.inputs)
  assert.ok(inputs.some((path) => path.endsWith('node_modules/agent-chunks/browser.mjs')), inputs.join('\n'))
  assert.ok(!inputs.some((path) => path.endsWith('index.js') || path.endsWith('.cjs')), inputs.join('\n'))
  // The browser module runs in plain Node as well.
  const { result } = await import(join(project, 'dist', 'page.mjs'))
  assert.deepEqual(result, { chunks: [{ type: 'text', text: 'ab' }], reduced: [{ type: 'text', text: 'c' }] })
})

test('the command line through npx', () => {
  const out = run('node', [npmCli, 'exec', '--offline', '--', 'agent-chunks', 'replay', join(root, 'examples', 'demo-stream.ndjson')])
  assert.match(out.stdout, /\S/)
  replayed = out.stdout
  const help = run('node', [npmCli, 'exec', '--offline', '--', 'agent-chunks', '--help'])
  assert.match(help.stdout, /Usage: agent-chunks/)
})

test('AGENT_CHUNKS_BINDING=wasm chooses the WebAssembly build where the native addon loads, without a warning', () => {
  const chosen = use('use.cjs', { AGENT_CHUNKS_BINDING: 'wasm' })
  assert.equal(chosen.target, 'wasm32-wasi')
  assert.equal(chosen.stderr, '')
  assert.deepEqual(chosen.results, native)
})

test('with a native binary that does not load: the WebAssembly fallback, one line of warning, the same results', () => {
  writeFileSync(join(project, 'node_modules', `agent-chunks-${HOST}`, `agent-chunks.${HOST}.node`), 'not an ELF file')
  const broken = use('use.cjs')
  assert.equal(broken.target, 'wasm32-wasi')
  assert.deepEqual(broken.results, native)
  assert.equal(broken.stderr.split('\n').filter(Boolean).length, 1, broken.stderr)
})

test('with the platform package removed: the WebAssembly fallback, one line of warning, the same results', () => {
  rmSync(join(project, 'node_modules', `agent-chunks-${HOST}`), { recursive: true })
  const cjs = use('use.cjs')
  const esm = use('use.mjs')
  assert.equal(cjs.target, 'wasm32-wasi')
  assert.equal(esm.target, 'wasm32-wasi')
  assert.deepEqual(cjs.results, native)
  assert.deepEqual(esm.results, native)
  const lines = cjs.stderr.split('\n').filter(Boolean)
  assert.equal(lines.length, 1, cjs.stderr)
  assert.match(lines[0], /^agent-chunks: no native addon loaded for linux-x64; using the WebAssembly build/)
  assert.match(lines[0], /AGENT_CHUNKS_BINDING=wasm/)

  // Chosen, it is silent; refused, loading fails with the native addon's error.
  assert.equal(use('use.cjs', { AGENT_CHUNKS_BINDING: 'wasm' }).stderr, '')
  assert.equal(use('use.cjs', { NAPI_RS_FORCE_WASI: 'error' }).stderr, '')
  const refused = run('node', ['use.cjs'], { env: { AGENT_CHUNKS_BINDING: 'native' }, ok: false })
  assert.notEqual(refused.status, 0)
  assert.match(refused.stderr, /Cannot find native binding/)

  const out = run('node', [npmCli, 'exec', '--offline', '--', 'agent-chunks', 'replay', join(root, 'examples', 'demo-stream.ndjson')], { env: { AGENT_CHUNKS_BINDING: 'wasm' } })
  assert.equal(out.stdout, replayed)
  assert.ok(readdirSync(join(project, 'node_modules')).includes('agent-chunks-wasm32-wasi'))
})
