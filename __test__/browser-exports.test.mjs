// The package's two entries and its typings are one list of names: `browser.mjs` (the
// WebAssembly build bundlers pick for browsers and Electron renderers) exports what the
// generated `index.js` gives Node, `__napiBindingTarget` included, and `index.d.ts`
// declares each — a value it declares that the browser build lacked would fail every
// bundle that imports it. And docs/browser.md's size table is the build's.
import test from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import ts from 'typescript'
import { exportedNames, TEST_HOOK } from '../scripts/wasm/exports.mjs'
import { DRIFT, drifted, sizeTable, tableIn } from '../scripts/wasm/size-table.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
assert.ok(existsSync(join(root, 'browser.mjs')), 'browser.mjs is missing: npm run build:wasm')

/** What index.d.ts declares at its top level: values (with their kind) and types. */
function declared() {
  const file = join(root, 'index.d.ts')
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const values = new Map()
  const types = new Set()
  const exported = (node) => node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  for (const node of source.statements) {
    if (!exported(node)) continue
    if (ts.isVariableStatement(node)) {
      for (const d of node.declarationList.declarations) values.set(d.name.text, 'const')
    } else if (ts.isFunctionDeclaration(node)) values.set(node.name.text, 'function')
    else if (ts.isClassDeclaration(node)) values.set(node.name.text, 'class')
    else if (ts.isEnumDeclaration(node)) values.set(node.name.text, 'enum')
    else if (ts.isModuleDeclaration(node)) values.set(node.name.text, 'namespace')
    else if (ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node)) types.add(node.name.text)
  }
  return { values, types }
}

const indexNames = exportedNames(readFileSync(join(root, 'index.js'), 'utf8'))
const browser = await import(pathToFileURL(join(root, 'browser.mjs')).href)
const browserNames = Object.keys(browser).filter((name) => name !== 'default')

test('browser.mjs exports the names index.js gives Node, __napiBindingTarget among them', () => {
  assert.deepEqual([...browserNames].sort(), [...indexNames].sort())
  assert.ok(browserNames.includes('__napiBindingTarget'))
  assert.equal(browser.__napiBindingTarget, 'wasm32-wasip1', 'the browser build is the wasm32-wasip1 one')
  assert.equal(browser.default.__napiBindingTarget, 'wasm32-wasip1')
  // Named and default exports are the same values; the tests' hooks are on the default only.
  for (const name of browserNames) assert.equal(browser[name], browser.default[name], name)
  assert.ok(Object.keys(browser.default).filter((name) => !browserNames.includes(name)).every((name) => TEST_HOOK.test(name)))
  // Node's ES module entry names the same (cjs-module-lexer reads index.js's assignments).
  assert.deepEqual(Object.keys(require('../index.js')).filter((name) => !TEST_HOOK.test(name)).sort(), [...indexNames].sort())
})

test('every value index.d.ts declares is exported, as what it declares', () => {
  const { values } = declared()
  const missing = [...values.keys()].filter((name) => !browserNames.includes(name))
  assert.deepEqual(missing, [], 'declared by the typings, not exported by browser.mjs')
  const kinds = { const: ['string'], function: ['function'], class: ['function'], enum: ['object'], namespace: ['object'] }
  for (const [name, kind] of values) {
    assert.ok(kinds[kind].includes(typeof browser[name]), `${name}: declared a ${kind}, exported a ${typeof browser[name]}`)
  }
  assert.equal(values.get('__napiBindingTarget'), 'const')
  assert.match(readFileSync(join(root, 'index.d.ts'), 'utf8'), /__napiBindingTarget: [^\n]*'wasm32-wasip1'/)
})

test('every name exported is declared by index.d.ts: a value, or the type of a string enum', () => {
  const { values, types } = declared()
  for (const name of browserNames) {
    if (values.has(name)) continue
    assert.ok(types.has(name), `${name} is exported but index.d.ts does not declare it`)
    // napi-rs exports a string enum as an object of its values; the typings give its type.
    const value = browser[name]
    assert.ok(value && typeof value === 'object' && Object.values(value).every((v) => typeof v === 'string'), `${name}: an object of strings`)
  }
})

test("docs/browser.md's size table is the build's (within the drift the build tolerates)", () => {
  const sizeFile = join(root, 'target', 'wasm', 'size.json')
  assert.ok(existsSync(sizeFile), 'target/wasm/size.json is missing: npm run build:wasm')
  const size = JSON.parse(readFileSync(sizeFile, 'utf8'))
  const page = readFileSync(join(root, 'docs', 'browser.md'), 'utf8')
  assert.ok(tableIn(page), 'docs/browser.md has its size table between the markers')
  assert.deepEqual(drifted(page, size), [], `figures more than ${DRIFT * 100}% away from target/wasm/size.json: npm run build:wasm writes them`)
  assert.equal(size.module, readFileSync(join(root, 'browser.mjs')).length, 'size.json is of this browser.mjs')
})

test('the size table the build writes reads back; a figure off by more than the drift is stale', () => {
  const size = { wasm: 1988 * 1024, wasmGzip: 700 * 1024, module: 2875 * 1024, moduleGzip: 1000 * 1024 }
  const page = `# x\n\n${sizeTable(size)}\n\nmore`
  assert.deepEqual(tableIn(page), size)
  assert.match(page, /\| 1,988 KiB \| 700 KiB \|/)
  assert.deepEqual(drifted(page, size), [])
  assert.deepEqual(drifted(page, { ...size, wasm: size.wasm * (1 + 2 * DRIFT) }), ['wasm'])
  assert.deepEqual(drifted('no table', size), ['wasm', 'wasmGzip', 'module', 'moduleGzip'])
})
