// What the cross builds need, and the environment each target is built in.
//
// Everything comes from Debian's packages (installed with apt-get when missing, see
// ../wasm/toolchain.mjs) and from files this script writes itself: a stub `libnode.dll`
// for Windows, a link to libgcc_s for musl, a linker wrapper and a stub SDK for macOS
// (macos-sdk.mjs). `XBUILD_DIR` (default: target/cross) holds them and one cargo target
// folder per platform, kept between runs.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensurePackages, TOOLS } from '../wasm/toolchain.mjs'
import { writeMacosSdk } from './macos-sdk.mjs'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const xbuild = process.env.XBUILD_DIR || join(root, 'target', 'cross')

const LLVM = '14'
export const LLVM_TOOLS = {
  nm: `/usr/bin/llvm-nm-${LLVM}`,
  objcopy: `/usr/bin/llvm-objcopy-${LLVM}`,
  objdump: `/usr/bin/llvm-objdump-${LLVM}`,
  readobj: `/usr/bin/llvm-readobj-${LLVM}`,
}
const LD64 = '/usr/bin/ld64.lld-22'
const LLVM_AR = `/usr/bin/llvm-ar-${LLVM}`

// Debian's rustc and the standard library's source, the cross C toolchains (their C
// libraries and startup files), lld for Mach-O, LLVM's binary tools for the checks.
const BUILD = [
  { pkg: 'rustc-web', file: TOOLS.rustc },
  { pkg: 'cargo-web', file: TOOLS.cargo },
  { pkg: 'rust-web-src', file: '/usr/lib/rustlib/src/rust/library/std' },
  { pkg: 'lld-22', file: LD64 },
  { pkg: 'gcc-aarch64-linux-gnu', file: '/usr/bin/aarch64-linux-gnu-gcc' },
  { pkg: 'libc6-dev-arm64-cross', file: '/usr/aarch64-linux-gnu/lib/libc.so' },
  { pkg: 'gcc-mingw-w64-x86-64', file: '/usr/bin/x86_64-w64-mingw32-gcc' },
  { pkg: 'musl-tools', file: '/usr/bin/musl-gcc' },
  { pkg: `llvm-${LLVM}`, file: LLVM_TOOLS.objdump },
]
// Running the binaries of other platforms: qemu-user for arm64 Linux, Wine for Windows.
const RUN = [
  { pkg: 'qemu-user', file: '/usr/bin/qemu-aarch64' },
  { pkg: 'wine64', file: '/usr/lib/wine/wine64' },
]

function ensure(list, what) {
  const packages = [...new Set(list.map((p) => p.pkg))]
  ensurePackages(packages, () => list.filter((p) => !existsSync(p.file)).map((p) => p.file), what)
}

export const ensureBuildTools = () => ensure(BUILD, 'The cross builds')
export const ensureRunTools = () => ensure([...BUILD, ...RUN], 'Running the cross builds')

function run(command, args, options = {}) {
  const done = spawnSync(command, args, { stdio: 'inherit', ...options })
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${done.status ?? done.signal})`)
}

function writeExecutable(file, text) {
  writeFileSync(file, text)
  chmodSync(file, 0o755)
}

function link(target, file) {
  if (!existsSync(file)) symlinkSync(target, file)
}

/**
 * The tools folder on the PATH of every cross build: `rust-objcopy` (rustc strips with it
 * and Debian's rustc does not ship it) is LLVM's objcopy.
 */
function tools() {
  const bin = join(xbuild, 'bin')
  mkdirSync(bin, { recursive: true })
  link(LLVM_TOOLS.objcopy, join(bin, 'rust-objcopy'))
  return bin
}

// napi-build's build script wants a `libnode.dll` for the GNU Windows target and links
// it; napi-sys finds N-API in the running node.exe at load time, so an empty DLL is
// enough, and the linker leaves it out of the imports since nothing is taken from it.
function libnodeStub() {
  const dir = join(xbuild, 'libnode-stub')
  if (!existsSync(join(dir, 'libnode.dll'))) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'empty.c'), '// An empty DLL: see scripts/release/toolchain.mjs.\n')
    run('x86_64-w64-mingw32-gcc', ['-shared', '-o', join(dir, 'libnode.dll'), join(dir, 'empty.c')])
  }
  return dir
}

// A musl addon is a shared object, so it links against libc dynamically
// (`-crt-static` off) and needs libgcc_s for unwinding; musl-gcc's search path has none,
// the host's is the same library (Alpine's `libgcc` package provides it at run time).
function muslLinkDir() {
  const dir = join(xbuild, 'musl-libgcc')
  mkdirSync(dir, { recursive: true })
  link('/lib/x86_64-linux-gnu/libgcc_s.so.1', join(dir, 'libgcc_s.so'))
  return dir
}

// rustc drives ld64.lld itself (`linker-flavor=ld64.lld`). napi-build asks for
// `-Wl -undefined dynamic_lookup`, meant for a C compiler driver: the wrapper drops the
// three arguments. The addon needs no lookup of undefined symbols (napi-sys finds N-API
// at load time), and without it a symbol missing from the stub SDK fails the link instead
// of being looked up in whatever is loaded; the link names every missing symbol.
// `-dead_strip_dylibs` leaves out libiconv, which the standard library links and never calls.
function ld64Wrapper() {
  const file = join(xbuild, 'bin', 'ld64-addon')
  writeExecutable(
    file,
    `#!/bin/sh
# Written by scripts/release/toolchain.mjs: ld64.lld without napi-build's driver flags.
for arg; do
  shift
  case "$skip$arg" in
    -Wl) skip=1 ;;
    1-undefined) skip=2 ;;
    2dynamic_lookup) skip= ;;
    *) skip=; set -- "$@" "$arg" ;;
  esac
done
exec ${LD64} "$@" -dead_strip_dylibs --error-limit=0
`,
  )
  return file
}

// Node 20's own macOS builds need 10.15 (x64) and 11.0 (arm64, the first release for
// Apple silicon): an addon asking less would buy nothing.
export const MACOS_MIN = { 'x86_64-apple-darwin': '10.15', 'aarch64-apple-darwin': '11.0' }

// The C compiler for the C the addon carries (SQLite, compiled by libsqlite3-sys through
// the `cc` crate, which takes it from `CC_<target>`): Debian's cross gcc for Linux and
// Windows; for macOS, whose C headers Debian has no package of, `zig cc` (zig carries
// macOS's libc headers), from the PyPI wheel `ziglang` unpacked into XBUILD_DIR/zig, or
// `ZIG` if set. Compiling needs no SDK; the link stays ld64.lld's.
const ZIG_VERSION = '0.17.1'

function zig() {
  if (process.env.ZIG) return process.env.ZIG
  const dir = join(xbuild, 'zig')
  const binary = join(dir, 'ziglang', 'zig')
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true })
    run('python3', ['-m', 'pip', 'download', `ziglang==${ZIG_VERSION}`, '--no-deps', '--only-binary=:all:', '--platform', 'manylinux_2_12_x86_64', '-d', dir])
    const wheel = readdirSync(dir).find((f) => f.startsWith('ziglang-') && f.endsWith('.whl'))
    if (!wheel) throw new Error(`no ziglang wheel in ${dir}`)
    run('python3', ['-m', 'zipfile', '-e', join(dir, wheel), dir])
    chmodSync(binary, 0o755)
  }
  return binary
}

/**
 * A one-program wrapper for `zig cc -target T` (the cc crate takes one program per
 * variable). The cc crate names the target clang's way (`--target=arm64-apple-macosx`,
 * `-arch arm64`), which zig refuses: the wrapper drops them, zig's own `-target` says it.
 */
function zigCc(zigTarget) {
  const file = join(xbuild, 'bin', `zig-cc-${zigTarget}`)
  writeExecutable(
    file,
    `#!/bin/sh
# Written by scripts/release/toolchain.mjs: zig's C compiler for ${zigTarget}.
for arg; do
  shift
  case "$skip$arg" in
    --target=*) skip= ;;
    -arch) skip=1 ;;
    1*) skip= ;;
    *) skip=; set -- "$@" "$arg" ;;
  esac
done
exec ${zig()} cc -target ${zigTarget} "$@"
`,
  )
  return file
}

const C_COMPILERS = {
  'x86_64-unknown-linux-gnu': () => 'cc',
  'aarch64-unknown-linux-gnu': () => 'aarch64-linux-gnu-gcc',
  'x86_64-unknown-linux-musl': () => 'musl-gcc',
  'x86_64-pc-windows-gnu': () => 'x86_64-w64-mingw32-gcc',
  'x86_64-apple-darwin': () => zigCc('x86_64-macos'),
  'aarch64-apple-darwin': () => zigCc('aarch64-macos'),
}

/** The environment variables that build `target` (see targets.mjs). */
export function targetEnv(target) {
  const bin = tools()
  const env = { PATH: `${bin}:${process.env.PATH}` }
  const key = target.rust.toUpperCase().replaceAll('-', '_')
  const compiler = C_COMPILERS[target.rust]
  if (compiler) {
    env[`CC_${target.rust.replaceAll('-', '_')}`] = compiler()
    env[`AR_${target.rust.replaceAll('-', '_')}`] = target.rust.includes('apple') ? LLVM_AR : target.rust === 'x86_64-pc-windows-gnu' ? 'x86_64-w64-mingw32-ar' : target.rust.startsWith('aarch64-unknown-linux') ? 'aarch64-linux-gnu-ar' : 'ar'
  }
  switch (target.rust) {
    case 'x86_64-unknown-linux-gnu':
      break
    case 'aarch64-unknown-linux-gnu':
      env[`CARGO_TARGET_${key}_LINKER`] = 'aarch64-linux-gnu-gcc'
      break
    case 'x86_64-unknown-linux-musl':
      env[`CARGO_TARGET_${key}_LINKER`] = 'musl-gcc'
      env[`CARGO_TARGET_${key}_RUSTFLAGS`] = `-C target-feature=-crt-static -L native=${muslLinkDir()}`
      break
    case 'x86_64-pc-windows-gnu':
      env[`CARGO_TARGET_${key}_LINKER`] = 'x86_64-w64-mingw32-gcc'
      env.LIBNODE_PATH = libnodeStub()
      break
    case 'x86_64-apple-darwin':
    case 'aarch64-apple-darwin': {
      const sdk = writeMacosSdk(join(xbuild, 'macos-sdk'))
      env[`CARGO_TARGET_${key}_LINKER`] = ld64Wrapper()
      env[`CARGO_TARGET_${key}_RUSTFLAGS`] =
        `-C linker-flavor=ld64.lld -C link-arg=-install_name -C link-arg=@rpath/agent-chunks.${target.platform}.node`
      env.SDKROOT = sdk
      env.MACOSX_DEPLOYMENT_TARGET = MACOS_MIN[target.rust]
      break
    }
    default:
      throw new Error(`no build environment for ${target.rust}`)
  }
  return env
}
