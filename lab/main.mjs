#!/usr/bin/env node
// npm run lab: runs real agents, installed from the npm registry, against the lab's
// scripted model server on 127.0.0.1, and keeps what they stream and write.
//
//   npm run lab                                   the full matrix (lab/matrix.mjs) × every scenario
//   npm run lab -- --quick                        one version per tool × text, tool, unicode
//   npm run lab -- --tool codex --version 0.171.0 --scenario tool,abort
//   npm run lab -- --tool codex,pi --version codex=0.171.0,pi=0.73.1
//   npm run lab -- --check                        check the captures already made: per live stream, our live
//                                                 fold == our fold of it whole == our reload of the session file
//                                                 the run wrote (as `agent-chunks check`) == what the tool shows
//                                                 (resume.*.json); a matrix, each difference with its first place
//                                                 and a reason from lab/reasons.mjs where the tool explains it
//   npm run lab -- --check --json                 the same as JSON
//   npm run lab -- --list                         the tools, versions and scenarios
//   npm run lab -- --matrix                       a Markdown table of the captures' status
//   npm run lab -- --reduce CAPTURE --to DIR      a capture as a fixture that may be committed
//                                                 (the tools' own texts replaced; see lab/reduce.mjs)
//
// Captures go to --out (default AGENT_CHUNKS_LAB_OUT, else ~/.cache/agent-chunks-lab/captures):
// <tool>/<version>/<scenario>/. Installs are cached in ~/.cache/agent-chunks-lab
// (AGENT_CHUNKS_LAB_CACHE). Captures hold the tools' system prompts and tool descriptions:
// they stay out of the repository.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { CACHE } from './install.mjs'
import { checkCapture, describeResult } from './check.mjs'
import { REASONS } from './reasons.mjs'
import { MATRIX, QUICK } from './matrix.mjs'
import { reduceCapture } from './reduce.mjs'
import { runOne } from './run.mjs'
import { SCENARIOS } from './scenarios.mjs'
import { TOOLS } from './tools/all.mjs'

const { values } = parseArgs({
  options: {
    tool: { type: 'string' },
    version: { type: 'string' },
    scenario: { type: 'string' },
    out: { type: 'string' },
    quick: { type: 'boolean' },
    check: { type: 'boolean' },
    list: { type: 'boolean' },
    matrix: { type: 'boolean' },
    reduce: { type: 'string' },
    to: { type: 'string' },
    keep: { type: 'boolean' },
    json: { type: 'boolean' },
  },
})
const list = (s) => (s ? s.split(',').filter(Boolean) : undefined)
const outRoot = values.out ?? process.env.AGENT_CHUNKS_LAB_OUT ?? join(CACHE, 'captures')

if (values.list) {
  for (const [tool, versions] of Object.entries(MATRIX)) {
    console.log(`${tool} (${TOOLS[tool].pkg})`)
    for (const [v, why] of versions) console.log(`  ${v.padEnd(16)} ${why}`)
  }
  console.log('scenarios')
  for (const [name, s] of Object.entries(SCENARIOS)) console.log(`  ${name.padEnd(14)} ${s.about}`)
  process.exit(0)
}

if (values.reduce) {
  if (!values.to) throw new TypeError('--reduce needs --to: the folder the fixture is written to')
  const r = reduceCapture(values.reduce, values.to)
  for (const leak of r.leaks) console.error(`${leak.file}: a tool text is left: ${JSON.stringify(leak.text)}`)
  console.log(r.ok ? `${r.files.length} files, ${r.removed} tool texts replaced → ${values.to}` : 'nothing written')
  process.exit(r.ok ? 0 : 1)
}

if (values.matrix) {
  const runs = captureDirs(outRoot).map((dir) => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')))
  const names = Object.keys(SCENARIOS)
  const mark = { captured: '✓', incomplete: '◐', unsupported: '–', failed: '✗', 'install-failed': '✗i' }
  console.log(`| tool | version | ${names.join(' | ')} |`)
  console.log(`| --- | --- |${names.map(() => ' --- |').join('')}`)
  const rows = new Map()
  for (const r of runs) {
    const key = `${r.tool}\t${r.version}`
    if (!rows.has(key)) rows.set(key, {})
    rows.get(key)[r.scenario] = mark[r.status] ?? r.status
  }
  const order = [...rows.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
  for (const key of order) {
    const [tool, version] = key.split('\t')
    console.log(`| ${tool} | ${version} | ${names.map((n) => rows.get(key)[n] ?? ' ').join(' | ')} |`)
  }
  console.log(`\n${Object.entries(mark).map(([k, v]) => `${v} ${k}`).join(', ')}`)
  process.exit(0)
}

if (values.check) {
  const results = captureDirs(outRoot)
    .map((dir) => checkCapture(dir, JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'))))
    .filter((r) => matches(r))
  const summary = summarize(results)
  if (values.json) console.log(JSON.stringify({ captures: outRoot, summary, reasons: Object.fromEntries(Object.entries(REASONS).map(([k, r]) => [k, r.why])), results }, null, 2))
  else {
    for (const r of results) if (r.verdict !== 'pass' && r.verdict !== 'none') console.log(describeResult(r))
    console.log(`\n${checkMatrix(results)}\n`)
    console.log(describeSummary(summary))
  }
  process.exit(summary.differ ? 1 : 0)
}

const tools = list(values.tool) ?? (values.quick ? Object.keys(QUICK.tools) : Object.keys(MATRIX))
const scenarios = list(values.scenario) ?? (values.quick ? QUICK.scenarios : Object.keys(SCENARIOS))
for (const t of tools) if (!TOOLS[t]) throw new TypeError(`--tool: no tool named ${t} (${Object.keys(TOOLS).join(', ')})`)
for (const s of scenarios) if (!SCENARIOS[s]) throw new TypeError(`--scenario: no scenario named ${s} (${Object.keys(SCENARIOS).join(', ')})`)

const results = []
for (const t of tools) {
  // --version 0.171.0 for every tool named, or codex=0.171.0,pi=0.73.1 for each its own.
  const given = list(values.version)?.filter((v) => !v.includes('=') || v.startsWith(`${t}=`)).map((v) => v.replace(/^[^=]*=/, ''))
  const versions = given?.length ? given : values.quick ? QUICK.tools[t] : MATRIX[t].map(([v]) => v)
  for (const version of versions) {
    for (const scenario of scenarios) {
      const started = Date.now()
      const run = await runOne({ tool: TOOLS[t], version, scenario, outRoot, keep: values.keep })
      const secs = ((Date.now() - started) / 1000).toFixed(1)
      console.log(`${t} ${version} ${scenario}: ${run.status} (${secs} s)${run.error ? ` — ${firstLine(run.error)}` : ''}${run.reason ? ` — ${run.reason}` : ''}${run.missing?.length ? ` — missing ${run.missing.join(', ')}` : ''}`)
      const dir = join(outRoot, t, version, scenario)
      const checked = existsSync(join(dir, 'run.json')) ? checkCapture(dir, run) : undefined
      if (checked && checked.verdict !== 'none') console.log(describeResult(checked).replace(/^/gm, '  '))
      results.push({ tool: t, version, scenario, status: run.status, check: checked?.verdict, seconds: Number(secs), error: run.error && firstLine(run.error), reason: run.reason, missing: run.missing })
      // A version that cannot run at all (no install, no local endpoint) is said once.
      if (run.status === 'install-failed' || run.wholeVersion) break
    }
  }
}
// A log of every run, one line each, beside the captures (the table: --matrix).
mkdirSync(outRoot, { recursive: true })
const at = new Date().toISOString()
appendFileSync(join(outRoot, 'runs.jsonl'), results.map((r) => JSON.stringify({ at, ...r }) + '\n').join(''))
const count = (s) => results.filter((r) => r.status === s).length
console.log(`captured ${count('captured')}, incomplete ${count('incomplete')}, failed ${count('failed')}, unsupported ${count('unsupported')}, install-failed ${count('install-failed')} → ${outRoot}`)

/** --tool, --version and --scenario narrow what --check reports, as they narrow a run. */
function matches(r) {
  const pick = (given, value) => !given || list(given).some((v) => v === value || v.endsWith(`=${value}`))
  return pick(values.tool, r.tool) && pick(values.version, r.version) && pick(values.scenario, r.scenario)
}

/** The captures' verdicts, and how many differences each reason explains. */
function summarize(results) {
  const summary = { captures: results.length, checked: 0, pass: 0, explained: 0, differ: 0, none: 0, reasons: {} }
  for (const r of results) {
    summary[r.verdict]++
    if (r.verdict !== 'none') summary.checked++
    for (const s of r.streams) for (const c of Object.values(s.checks)) if (c.reason) summary.reasons[c.reason] = (summary.reasons[c.reason] ?? 0) + 1
  }
  return summary
}

function describeSummary(s) {
  const reasons = Object.entries(s.reasons).map(([k, n]) => `  ${k}: ${n} comparison${n === 1 ? '' : 's'}`)
  return [`${s.checked} captures checked (of ${s.captures}): ${s.pass} pass, ${s.explained} differ where the tool does (reasons below), ${s.differ} differ unexplained; ${s.none} with nothing to check`, ...reasons].join('\n')
}

/** tool × version rows, a column per scenario: ✓ pass, ≈ explained, ✗ differ, – nothing to check. */
function checkMatrix(results) {
  const names = Object.keys(SCENARIOS)
  const mark = { pass: '✓', explained: '≈', differ: '✗', none: '–' }
  const rows = new Map()
  for (const r of results) {
    const key = `${r.tool}\t${r.version}`
    if (!rows.has(key)) rows.set(key, {})
    rows.get(key)[r.scenario] = mark[r.verdict]
  }
  const lines = [`| tool | version | ${names.join(' | ')} |`, `| --- | --- |${names.map(() => ' --- |').join('')}`]
  for (const key of [...rows.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))) {
    const [tool, version] = key.split('\t')
    lines.push(`| ${tool} | ${version} | ${names.map((n) => rows.get(key)[n] ?? ' ').join(' | ')} |`)
  }
  return `${lines.join('\n')}\n\n✓ pass, ≈ differ as the tool does (a reason of lab/reasons.mjs), ✗ differ, – nothing to check (not captured, or no stream we read)`
}

function firstLine(s) {
  return String(s).split('\n').find((l) => l.trim()) ?? ''
}

function captureDirs(root) {
  const out = []
  if (!existsSync(root)) return out
  for (const tool of readdirSync(root, { withFileTypes: true })) {
    if (!tool.isDirectory()) continue
    for (const version of readdirSync(join(root, tool.name), { withFileTypes: true })) {
      if (!version.isDirectory()) continue
      for (const scenario of readdirSync(join(root, tool.name, version.name), { withFileTypes: true })) {
        const dir = join(root, tool.name, version.name, scenario.name)
        if (scenario.isDirectory() && existsSync(join(dir, 'run.json'))) out.push(dir)
      }
    }
  }
  return out.sort()
}
