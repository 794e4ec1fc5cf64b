// Runs every cargo-fuzz target for a bounded time (FUZZ_SECONDS each, default 30) and
// prints executions per target. FUZZ_TARGETS=a,b runs only those. Installs cargo-fuzz
// when it is missing; needs a nightly toolchain. Exits non-zero when a target crashes
// (its input is saved under fuzz/artifacts/<target>/).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

const root = fileURLToPath(new URL('..', import.meta.url))
const fuzz = join(root, 'fuzz')
const seconds = Number(process.env.FUZZ_SECONDS ?? 30)

function run(command, args, options = {}) {
  return spawnSync(command, args, { cwd: root, encoding: 'utf8', ...options })
}

if (run('cargo', ['+nightly', '--version']).status !== 0) {
  console.error('cargo fuzz needs a nightly toolchain: rustup toolchain install nightly')
  process.exit(1)
}
if (run('cargo', ['+nightly', 'fuzz', '--version']).status !== 0) {
  console.log('cargo-fuzz is missing: installing it (cargo install cargo-fuzz)')
  const install = run('cargo', ['install', 'cargo-fuzz'], { stdio: 'inherit' })
  if (install.status !== 0) process.exit(install.status ?? 1)
}

const all = run('cargo', ['+nightly', 'fuzz', 'list']).stdout.split('\n').filter(Boolean)
const targets = process.env.FUZZ_TARGETS ? process.env.FUZZ_TARGETS.split(',') : all

// Seeds from the recorded examples, for the targets that read those formats.
const example = (name) => readFileSync(join(root, 'examples', name))
const lines = (name) => example(name).toString().split('\n').filter(Boolean)
const seeds = {
  bytes_split: () => [example('demo-stream.ndjson'), example('sn-thinking.sse')],
  bytes_line: () => [example('demo-stream.ndjson'), ...lines('demo-stream.ndjson')],
  json_value: () => [example('chatviewer.json'), example('sn-history.json'), ...lines('pi-session.jsonl')],
  pi_session: () => [example('pi-session.jsonl')],
  sn_thought: () => [
    example('sn-history.json'),
    ...lines('sn-thinking.sse').map((line) => line.replace(/^data: /, '')),
  ],
  webui_json: () => [example('chatviewer.json'), `[${lines('acp-session.ndjson').join(',')}]`],
}
for (const target of targets) {
  const corpus = join(fuzz, 'corpus', target)
  if (existsSync(corpus) && readdirSync(corpus).length > 0) continue
  mkdirSync(corpus, { recursive: true })
  ;(seeds[target]?.() ?? []).forEach((seed, i) => writeFileSync(join(corpus, `seed-${i}`), seed))
}

const build = run('cargo', ['+nightly', 'fuzz', 'build'], { stdio: 'inherit' })
if (build.status !== 0) process.exit(build.status ?? 1)

const summary = []
let failed = false
for (const target of targets) {
  console.log(`\n── ${target}: ${seconds} s`)
  const result = run(
    'cargo',
    [
      '+nightly', 'fuzz', 'run', target, '--',
      `-max_total_time=${seconds}`,
      `-dict=${join(fuzz, 'json.dict')}`,
      '-max_len=16384',
      '-timeout=20',
      '-print_final_stats=1',
    ],
    { maxBuffer: 1 << 28 },
  )
  const log = `${result.stdout}${result.stderr}`
  const runs = log.match(/stat::number_of_executed_units:\s*(\d+)/)?.[1]
  const time = log.match(/Done \d+ runs in (\d+) second/)?.[1] ?? String(seconds)
  const coverage = [...log.matchAll(/\bcov: (\d+)/g)].at(-1)?.[1]
  if (result.status !== 0) {
    failed = true
    console.log(log.split('\n').slice(-60).join('\n'))
  }
  summary.push({ target, ok: result.status === 0, executions: Number(runs ?? 0), seconds: Number(time), coverage: Number(coverage ?? 0) })
  console.log(`${target}: ${result.status === 0 ? 'ok' : 'CRASHED'}, ${runs ?? '?'} executions in ${time} s, coverage ${coverage ?? '?'}`)
}

console.log('\n| target | result | executions | seconds | edges covered |\n| --- | --- | --- | --- | --- |')
for (const s of summary) console.log(`| ${s.target} | ${s.ok ? 'ok' : 'crash'} | ${s.executions.toLocaleString('en')} | ${s.seconds} | ${s.coverage} |`)
process.exit(failed ? 1 : 0)
