// The WebAssembly toolchain: Debian's packages, installed with apt-get when missing.
//
// rustup's toolchain stays first on the PATH for the native addon; the WebAssembly build
// names Debian's rustc and cargo by path. `rustc-web` is a rustc that knows the wasm
// targets, `rust-web-src` the standard library's source (built with `-Zbuild-std`),
// `lld-22` the linker and `wasi-libc` the C library and startup objects for WASI.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

export const PACKAGES = ['rustc-web', 'cargo-web', 'rust-web-src', 'lld-22', 'wasi-libc']

export const TOOLS = {
  rustc: '/usr/bin/rustc',
  cargo: '/usr/bin/cargo',
  wasmLd: '/usr/bin/wasm-ld-22',
  wasiLibc: '/usr/lib/wasm32-wasi',
}

const STD_SOURCE = '/usr/lib/rustlib/src/rust/library/std'

function missing() {
  const lacks = []
  if (!knowsTarget()) lacks.push(`${TOOLS.rustc} with the wasm32-wasip1 target`)
  if (!existsSync(TOOLS.cargo)) lacks.push(TOOLS.cargo)
  if (!existsSync(STD_SOURCE)) lacks.push(STD_SOURCE)
  if (!existsSync(TOOLS.wasmLd)) lacks.push(TOOLS.wasmLd)
  if (!existsSync(`${TOOLS.wasiLibc}/crt1-reactor.o`)) lacks.push(`${TOOLS.wasiLibc}/crt1-reactor.o`)
  return lacks
}

function knowsTarget() {
  if (!existsSync(TOOLS.rustc)) return false
  const list = spawnSync(TOOLS.rustc, ['--print', 'target-list'], { encoding: 'utf8' })
  return list.status === 0 && list.stdout.split('\n').includes('wasm32-wasip1')
}

function run(command, args) {
  console.log(`$ ${command} ${args.join(' ')}`)
  const done = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
  return done.status === 0
}

/**
 * Installs Debian's `packages` (as root, with apt-get) when `missing()` names anything;
 * throws, saying what to install, when that cannot be done.
 */
export function ensurePackages(packages, missing, what) {
  let lacks = missing()
  if (lacks.length === 0) return
  const install = ['install', '-y', '--no-install-recommends', ...packages]
  // Another apt-get (an unattended upgrade, a second build) may hold dpkg's lock for a
  // while: wait for it rather than fail the build.
  const wait = ['-o', 'DPkg::Lock::Timeout=600']
  const asRoot = process.getuid?.() === 0
  if (asRoot && existsSync('/usr/bin/apt-get')) {
    console.log(`${what} needs Debian's ${packages.join(', ')}; installing them.`)
    if (!run('apt-get', [...wait, ...install])) {
      run('apt-get', [...wait, 'update'])
      run('apt-get', [...wait, ...install])
    }
    lacks = missing()
  }
  if (lacks.length > 0) {
    throw new Error(`${what} needs ${lacks.join(', ')}. On Debian 12, as root: apt-get ${install.join(' ')}`)
  }
}

/**
 * Builds the crate's library for `target` with Debian's rustc, the standard library
 * compiled from source for it (`-Zbuild-std`, unstable, allowed by `RUSTC_BOOTSTRAP`), into
 * `targetDir`, with `env` added to the environment. Exits the process if cargo fails.
 * The panic strategy stays the target's: unwinding for the native addons (the binding
 * catches panics at its boundary, see src/napi/raw/call.rs), abort for WebAssembly.
 */
export function cargoBuildStd({ root, target, targetDir, env: extra = {}, quiet = false }) {
  const env = {
    ...process.env,
    RUSTC: TOOLS.rustc,
    CARGO: TOOLS.cargo,
    RUSTC_BOOTSTRAP: '1',
    CARGO_TARGET_DIR: targetDir,
    ...extra,
  }
  // Flags meant for the host build (rustup's) must not reach a cross build.
  delete env.RUSTFLAGS
  const args = ['build', '--lib', '--release', '--target', target, '-Zbuild-std=std,panic_abort']
  if (quiet) args.push('--quiet')
  const cargo = spawnSync(TOOLS.cargo, args, { cwd: root, env, stdio: 'inherit' })
  if (cargo.status !== 0) process.exit(cargo.status ?? 1)
  return join(targetDir, target, 'release')
}

/** Installs the Debian packages if a piece is missing; throws if that cannot be done. */
export function ensureToolchain() {
  ensurePackages(PACKAGES, missing, 'The WebAssembly build')
}

// `node scripts/wasm/toolchain.mjs`: only the install step.
if (import.meta.url === `file://${process.argv[1]}`) ensureToolchain()
