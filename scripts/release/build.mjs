// npm run release [-- platform…]: builds the addon for every platform package (or the ones
// named: linux-arm64-gnu, darwin-arm64 …), one after the other, on this machine, checks
// each binary (check.mjs), puts it in its package under npm/<platform>/, packs the
// packages into dist/ and prints their sizes (also written to dist/sizes.json).
//
// Debian's rustc builds every target, the standard library compiled for it from source
// (as for WebAssembly, see ../wasm/toolchain.mjs); the linkers are Debian's cross
// compilers and lld. Cold, a target takes a few minutes on two cores; its cargo folder
// under XBUILD_DIR is kept, so a second run only relinks what changed.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { cargoBuildStd } from '../wasm/toolchain.mjs'
import { checkBinary } from './check.mjs'
import { binaryName, selectTargets, TARGETS } from './targets.mjs'
import { ensureBuildTools, root, targetEnv, xbuild } from './toolchain.mjs'

const dist = join(root, 'dist')

/** The file the linker wrote for `target`. */
function artifact(dir, target) {
  if (target.format === 'pe') return join(dir, 'agent_chunks.dll')
  if (target.format === 'macho') return join(dir, 'libagent_chunks.dylib')
  return join(dir, 'libagent_chunks.so')
}

/** The main package lists every platform package, at its own version. */
function checkOptionalDependencies() {
  const main = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const napiTargets = main.napi.targets
  for (const target of TARGETS) {
    const pkg = JSON.parse(readFileSync(join(root, 'npm', target.platform, 'package.json'), 'utf8'))
    const problems = []
    if (!napiTargets.includes(target.napi)) problems.push(`napi.targets lacks ${target.napi}`)
    if (main.optionalDependencies?.[pkg.name] !== main.version) problems.push(`optionalDependencies.${pkg.name} is not ${main.version}`)
    if (pkg.version !== main.version) problems.push(`npm/${target.platform} is at ${pkg.version}, not ${main.version}`)
    if (pkg.main !== binaryName(target)) problems.push(`npm/${target.platform}: main is not ${binaryName(target)}`)
    if (problems.length) throw new Error(`${problems.join('; ')} (napi create-npm-dirs writes the packages)`)
  }
}

function pack(target) {
  return packDir(join(root, 'npm', target.platform))
}

/** `npm pack` of the package in `dir` (an absolute path: npm reads `a/b` as a GitHub
 * repository) into dist/: its tarball and sizes. Lifecycle scripts are not run: what they
 * print would be read as the JSON report. */
function packDir(dir) {
  const done = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dist, dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (done.status !== 0) throw new Error(`npm pack ${dir} failed`)
  const [info] = JSON.parse(done.stdout)
  return { tarball: join(dist, info.filename), packed: info.size, unpacked: info.unpackedSize }
}

const kib = (n) => `${(n / 1024).toFixed(0)} KiB`.padStart(9)

const targets = selectTargets(process.argv.slice(2))
checkOptionalDependencies()
ensureBuildTools()
mkdirSync(dist, { recursive: true })
const sizesFile = join(dist, 'sizes.json')
const sizes = existsSync(sizesFile) ? JSON.parse(readFileSync(sizesFile, 'utf8')) : {}

for (const target of targets) {
  console.log(`\n== ${target.platform} (${target.rust})`)
  const started = Date.now()
  const out = cargoBuildStd({ root, target: target.rust, targetDir: join(xbuild, target.platform), env: targetEnv(target) })
  const binary = join(root, 'npm', target.platform, binaryName(target))
  // A new file in place of the old one, not the old one rewritten: a process (a test
  // run) may have the old one mapped.
  copyFileSync(artifact(out, target), `${binary}.new`)
  renameSync(`${binary}.new`, binary)
  const facts = checkBinary(target, binary)
  const packed = pack(target)
  const bytes = readFileSync(binary)
  sizes[target.platform] = {
    binary: bytes.length,
    binaryGzip: gzipSync(bytes, { level: 9 }).length,
    tarball: packed.packed,
    unpacked: packed.unpacked,
    ...facts,
  }
  writeFileSync(sizesFile, JSON.stringify(sizes, null, 2) + '\n')
  console.log(`${target.platform}: built and checked in ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

console.log('\npackage                       tarball unpacked   binary  gzip -9')
for (const target of TARGETS) {
  const s = sizes[target.platform]
  if (!s) continue
  const tarball = join(dist, `agent-chunks-${target.platform}-${JSON.parse(readFileSync(join(root, 'package.json'))).version}.tgz`)
  if (!existsSync(tarball) || statSync(tarball).size !== s.tarball) continue
  console.log(`agent-chunks-${target.platform}`.padEnd(28) + kib(s.tarball) + kib(s.unpacked) + kib(s.binary) + kib(s.binaryGzip))
}

// The WebAssembly fallback and the main package, when every platform was built: together
// with the platform packages, what a publish of this version is. The WebAssembly build
// (the main package's prepack) writes the files of both first.
if (process.argv.length <= 2) {
  console.log('\n== wasm32-wasi and the main package')
  const wasm = spawnSync(process.execPath, [join(root, 'scripts', 'wasm', 'build.mjs')], { stdio: 'inherit' })
  if (wasm.status !== 0) throw new Error('the WebAssembly build failed')
  for (const dir of [root, join(root, 'npm', 'wasm32-wasi')]) {
    const packed = packDir(dir)
    console.log(`${basename(packed.tarball)}`.padEnd(37) + kib(packed.packed) + kib(packed.unpacked))
  }
}
