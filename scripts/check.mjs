// npm test's check that nothing the README names can rot unseen: the fuzz targets (a
// crate outside the workspace `cargo test` builds) are type-checked with `cargo check` (and formatted as the rest),
// and the JavaScript the README runs (scripts/, bench/, cli/, bin/) is read by tsc with
// the package's typings. The scripts are plain JavaScript whose objects tsc can only
// guess at, so of tsc's findings this keeps those that mean the script no longer fits
// what it calls: a syntax error, a module or an export that does not exist, a wrong
// number of arguments.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
let failed = false

const fmt = spawnSync('cargo', ['fmt', '--check', '--manifest-path', join(root, 'fuzz', 'Cargo.toml')], {
  cwd: root,
  stdio: 'inherit',
})
if (fmt.status !== 0) {
  console.error('fuzz/: cargo fmt --check failed')
  failed = true
}
const cargo = spawnSync('cargo', ['check', '--bins', '--quiet', '--manifest-path', join(root, 'fuzz', 'Cargo.toml')], {
  cwd: root,
  stdio: 'inherit',
  // Its own target folder under target/, so the fuzz crate leaves nothing in fuzz/.
  env: { ...process.env, CARGO_TARGET_DIR: join(root, 'target', 'fuzz-check') },
})
if (cargo.status !== 0) {
  console.error('fuzz/: cargo check failed')
  failed = true
}

// TS1xxx: syntax; 2305, 2614, 2724: no such export; 2307: no such module;
// 2554, 2555: a wrong number of arguments.
const ROT = /error TS(1\d{3}|2305|2307|2554|2555|2614|2724):/
const tsc = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, '__test__', 'typings-scripts')],
  { cwd: root, encoding: 'utf8' },
)
const rot = tsc.stdout.split('\n').filter((line) => ROT.test(line))
if (rot.length > 0 || tsc.error || tsc.status === null) {
  console.error(rot.join('\n') || tsc.stderr || String(tsc.error))
  failed = true
}
if (failed) process.exit(1)
console.log('fuzz targets and scripts: checked')
