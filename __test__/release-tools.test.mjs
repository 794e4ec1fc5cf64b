// The tools of `npm run release` and `npm run test:platforms` (scripts/release/) that can
// be exercised without cross compilers: the binary checks on this machine's own build, the
// code-signature verifier on a signature written here, and the spawn rewrite for qemu.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkBinary, verifyCodeSignature } from '../scripts/release/check.mjs'
import { TARGETS } from '../scripts/release/targets.mjs'
import { LLVM_TOOLS } from '../scripts/release/toolchain.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const hostBinary = join(root, 'agent-chunks.linux-x64-gnu.node')
const linuxX64 = TARGETS.find((t) => t.platform === 'linux-x64-gnu')

test('this machine’s build exports only napi_register_module_v1 and needs glibc 2.34 at most', {
  skip: process.platform !== 'linux' || process.arch !== 'x64' ? 'an x64 Linux build' : !existsSync(LLVM_TOOLS.nm) && `needs ${LLVM_TOOLS.nm} (llvm-14)`,
}, () => {
  assert.ok(existsSync(hostBinary), `${hostBinary}: run npm run build`)
  const facts = checkBinary(linuxX64, hostBinary)
  assert.ok(facts.needs.includes('libc.so.6'))
  const [major, minor] = facts.glibc.split('.').map(Number)
  assert.ok(major === 2 && minor <= 34, `glibc ${facts.glibc}: docs/platforms.md says 2.34`)
  // A binary for another machine is refused.
  const arm64 = TARGETS.find((t) => t.platform === 'linux-arm64-gnu')
  assert.throws(() => checkBinary(arm64, hostBinary), /linux-arm64-gnu: machine Advanced Micro Devices X86-64/)
})

/** A Mach-O file with one load command, LC_CODE_SIGNATURE, signed ad hoc over 2.5 pages. */
function signedMachO() {
  const pageSize = 4096
  const codeLimit = 2 * pageSize + 2048
  const code = Buffer.alloc(codeLimit)
  for (let i = 64; i < codeLimit; i++) code[i] = (i * 31) & 0xff
  code.writeUInt32LE(0xfeedfacf, 0)
  code.writeUInt32LE(1, 16) // one load command
  const pages = Math.ceil(codeLimit / pageSize)
  const identifier = Buffer.from('agent-chunks\0')
  const cdHeader = 44
  const hashOffset = cdHeader + identifier.length
  const cdLength = hashOffset + 32 * pages
  const superLength = 20 + cdLength
  code.writeUInt32LE(0x1d, 32) // LC_CODE_SIGNATURE
  code.writeUInt32LE(16, 36)
  code.writeUInt32LE(codeLimit, 40)
  code.writeUInt32LE(superLength, 44)
  const sig = Buffer.alloc(superLength)
  sig.writeUInt32BE(0xfade0cc0, 0)
  sig.writeUInt32BE(superLength, 4)
  sig.writeUInt32BE(1, 8)
  sig.writeUInt32BE(0, 12) // CodeDirectory
  sig.writeUInt32BE(20, 16)
  const cd = sig.subarray(20)
  cd.writeUInt32BE(0xfade0c02, 0)
  cd.writeUInt32BE(cdLength, 4)
  cd.writeUInt32BE(0x20100, 8)
  cd.writeUInt32BE(0x20002, 12) // ad hoc, linker-signed
  cd.writeUInt32BE(hashOffset, 16)
  cd.writeUInt32BE(cdHeader, 20)
  cd.writeUInt32BE(0, 24)
  cd.writeUInt32BE(pages, 28)
  cd.writeUInt32BE(codeLimit, 32)
  cd[36] = 32
  cd[37] = 2 // SHA-256
  cd[39] = 12 // 4 KiB pages
  identifier.copy(cd, cdHeader)
  // The signature covers its own load command: the hashes are taken last.
  for (let page = 0; page < pages; page++) {
    const start = page * pageSize
    createHash('sha256').update(code.subarray(start, Math.min(start + pageSize, codeLimit))).digest().copy(cd, hashOffset + 32 * page)
  }
  return { file: Buffer.concat([code, sig]), command: { at: 32 }, codeLimit }
}

test('the code-signature check recomputes every page hash and finds a changed byte', () => {
  const { file, command, codeLimit } = signedMachO()
  assert.deepEqual(verifyCodeSignature(file, command), {
    adhoc: true,
    linkerSigned: true,
    identifier: 'agent-chunks',
    hash: 'sha256',
    pageSize: 4096,
    pages: 3,
  })
  for (const at of [100, 4096 + 17, 2 * 4096 + 2047]) {
    const changed = Buffer.from(file)
    changed[at] ^= 1
    assert.throws(() => verifyCodeSignature(changed, command), new RegExp(`page ${Math.floor(at / 4096)} `))
  }
  // A signature that stops short of the code it signs is refused too.
  const short = Buffer.from(file)
  short.writeUInt32BE(4096 * 2, codeLimit + 20 + 32) // the CodeDirectory's codeLimit
  assert.throws(() => verifyCodeSignature(short, command), /covers 8192 bytes/)
})

test('under qemu, a test that starts process.execPath starts it under the emulator', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qemu-spawn-'))
  try {
    // A stand-in emulator: notes its arguments, then runs the program after `-L <sysroot>`.
    const emulator = join(dir, 'emulator')
    writeFileSync(emulator, '#!/bin/sh\necho "emulated: $*" >&2\nshift 2\nexec "$@"\n')
    chmodSync(emulator, 0o755)
    const child = `
      import { spawnSync } from 'node:child_process'
      const node = spawnSync(process.execPath, ['-e', 'console.log(6 * 7)'], { encoding: 'utf8' })
      const other = spawnSync('sh', ['-c', 'echo direct'], { encoding: 'utf8' })
      console.log(JSON.stringify({ node, other }))
    `
    const run = spawnSync(
      process.execPath,
      ['--require', join(root, 'scripts', 'release', 'qemu-spawn.cjs'), '--input-type=module', '-e', child],
      { encoding: 'utf8', env: { ...process.env, AGENT_CHUNKS_QEMU: emulator, AGENT_CHUNKS_QEMU_SYSROOT: '/sysroot' } },
    )
    assert.equal(run.status, 0, run.stderr)
    const { node, other } = JSON.parse(run.stdout)
    assert.equal(node.stdout, '42\n')
    assert.equal(node.stderr, `emulated: -L /sysroot ${process.execPath} -e console.log(6 * 7)\n`)
    assert.deepEqual([other.stdout, other.stderr], ['direct\n', ''])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
