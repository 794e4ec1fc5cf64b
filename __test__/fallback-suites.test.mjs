// The WebAssembly fallback in Node gives the native addon's results: the differential,
// drop-in, bytes, history and bad-input suites run unchanged with
// AGENT_CHUNKS_BINDING=wasm, which makes the generated index.js load the fallback
// (`agent-chunks.wasi.cjs`, written by `npm run build:wasm`) in every process they start.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const SUITES = ['differential', 'drop-in', 'bytes', 'history', 'bad-input']
const env = { ...process.env, AGENT_CHUNKS_BINDING: 'wasm' }
delete env.NODE_TEST_CONTEXT

test('the suites pass on the WebAssembly fallback', () => {
  assert.ok(existsSync(join(root, 'agent-chunks.wasi.cjs')), 'agent-chunks.wasi.cjs is missing: npm run build:wasm')
  const loaded = spawnSync(process.execPath, ['-p', `require(${JSON.stringify(join(root, 'index.js'))}).__napiBindingTarget`], { env, encoding: 'utf8' })
  assert.equal(loaded.stdout.trim(), 'wasm32-wasi', loaded.stderr)
  assert.equal(loaded.stderr, '')
  const files = SUITES.map((name) => join(here, `${name}.test.mjs`))
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=dot', ...files], { env, encoding: 'utf8', cwd: root })
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`)
})
