// The checks every released binary passes, whether or not this machine can run it:
// the architecture, the one exported symbol (`napi_register_module_v1`), no N-API symbol
// left to the loader (napi-sys finds N-API in the running Node), the libraries it needs;
// for glibc the newest symbol version it asks for; for macOS the minimum version, the
// load commands and the ad-hoc code signature, its page hashes recomputed here.
//
// `node scripts/release/check.mjs [platform…]` checks the binaries in npm/<platform>/.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { binaryName, selectTargets } from './targets.mjs'
import { LLVM_TOOLS, MACOS_MIN, root } from './toolchain.mjs'

const EXPORT = 'napi_register_module_v1'

function tool(command, args) {
  const done = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20 })
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${done.stderr}`)
  return done.stdout
}

function fail(target, message) {
  throw new Error(`${target.platform}: ${message}`)
}

// ---- ELF (Linux) ----

const ELF_MACHINE = {
  'x86_64-unknown-linux-gnu': 'Advanced Micro Devices X86-64',
  'x86_64-unknown-linux-musl': 'Advanced Micro Devices X86-64',
  'aarch64-unknown-linux-gnu': 'AArch64',
}
const readelf = LLVM_TOOLS.readobj.replace('readobj', 'readelf')

function checkElf(target, file) {
  const header = tool(readelf, ['--file-header', file])
  const machine = /Machine:\s+(.+)/.exec(header)?.[1].trim()
  if (machine !== ELF_MACHINE[target.rust]) fail(target, `machine ${machine}`)
  if (!/Type:\s+DYN/.test(header)) fail(target, 'not a shared object')
  const exports = tool(LLVM_TOOLS.nm, ['-D', '--defined-only', '--format=just-symbols', file]).split('\n').filter(Boolean)
  const undefinedSymbols = tool(LLVM_TOOLS.nm, ['-D', '--undefined-only', '--format=just-symbols', file]).split('\n').filter(Boolean)
  const dynamic = tool(readelf, ['--dynamic-table', file])
  const needs = [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1])
  // Every versioned symbol the binary takes from glibc; the newest is the oldest glibc
  // that can load it.
  const versions = tool(readelf, ['--version-info', file])
  const glibc = [...versions.matchAll(/GLIBC_(\d+)\.(\d+)(?:\.(\d+))?/g)]
    .map((m) => [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])
    .pop()
  // musl's own linker names its C library `libc.so` (Alpine's toolchain,
  // `libc.musl-x86_64.so.1`); musl's loader takes either as itself.
  const libcs = target.rust.endsWith('musl') ? ['libc.so', 'libc.musl-x86_64.so.1'] : ['libc.so.6']
  if (!needs.some((n) => libcs.includes(n))) fail(target, `does not link ${libcs.join(' or ')}: ${needs}`)
  if (target.rust.endsWith('musl') && glibc) fail(target, 'a musl build asks for glibc symbol versions')
  return {
    machine,
    exports,
    undefinedSymbols,
    needs,
    ...(glibc ? { glibc: glibc[2] ? glibc.join('.') : `${glibc[0]}.${glibc[1]}` } : {}),
  }
}

// ---- PE (Windows) ----

// What a Windows addon may import: Windows' own DLLs. Not node.exe (N-API is found at
// load time) nor a MinGW runtime DLL that Windows does not have.
const WINDOWS_DLLS = /^(kernel32|ntdll|msvcrt|bcryptprimitives|advapi32|userenv|ws2_32|api-ms-win-[a-z0-9-]+)\.dll$/i

function checkPe(target, file) {
  const dump = tool(LLVM_TOOLS.objdump, ['--private-headers', file])
  const format = /file format (\S+)/.exec(dump)?.[1]
  if (format !== 'coff-x86-64') fail(target, `format ${format}`)
  const exportTable = dump.slice(dump.indexOf('Export Table:'))
  const exports = [...exportTable.matchAll(/^\s+\d+\s+0x[0-9a-f]+\s+(\S+)$/gim)].map((m) => m[1])
  const needs = [...dump.matchAll(/DLL Name: (\S+)/g)].map((m) => m[1])
  const foreign = needs.filter((dll) => !WINDOWS_DLLS.test(dll))
  if (foreign.length) fail(target, `imports ${foreign.join(', ')}, which Windows does not ship`)
  const undefinedSymbols = [...dump.matchAll(/^\s+\d+\s+(napi_\w+)$/gm)].map((m) => m[1])
  return { machine: 'x86-64', exports, undefinedSymbols, needs }
}

// ---- Mach-O (macOS) ----

const LC = {
  SYMTAB: 0x2,
  LOAD_DYLIB: 0xc,
  ID_DYLIB: 0xd,
  CODE_SIGNATURE: 0x1d,
  BUILD_VERSION: 0x32,
  VERSION_MIN_MACOSX: 0x24,
}
const LC_NAMES = {
  0x2: 'LC_SYMTAB',
  0xb: 'LC_DYSYMTAB',
  0xc: 'LC_LOAD_DYLIB',
  0xd: 'LC_ID_DYLIB',
  0x19: 'LC_SEGMENT_64',
  0x1b: 'LC_UUID',
  0x1d: 'LC_CODE_SIGNATURE',
  0x24: 'LC_VERSION_MIN_MACOSX',
  0x26: 'LC_FUNCTION_STARTS',
  0x29: 'LC_DATA_IN_CODE',
  0x2a: 'LC_SOURCE_VERSION',
  0x32: 'LC_BUILD_VERSION',
  0x8000001c: 'LC_RPATH',
  0x80000022: 'LC_DYLD_INFO_ONLY',
  0x80000033: 'LC_DYLD_EXPORTS_TRIE',
  0x80000034: 'LC_DYLD_CHAINED_FIXUPS',
}
const CPU = { 0x01000007: 'x86_64', 0x0100000c: 'arm64' }
const MACHO_CPU = { 'x86_64-apple-darwin': 'x86_64', 'aarch64-apple-darwin': 'arm64' }

const cstring = (buf, at) => buf.toString('latin1', at, buf.indexOf(0, at))
const version = (v) => `${v >>> 16}.${(v >> 8) & 0xff}${v & 0xff ? `.${v & 0xff}` : ''}`

/** The load commands of a 64-bit little-endian Mach-O file, each with its offset. */
function loadCommands(buf) {
  if (buf.readUInt32LE(0) !== 0xfeedfacf) throw new Error('not a 64-bit Mach-O file')
  const header = { cpu: CPU[buf.readUInt32LE(4)], filetype: buf.readUInt32LE(12), flags: buf.readUInt32LE(24) }
  const commands = []
  let at = 32
  for (let i = 0; i < buf.readUInt32LE(16); i++) {
    const cmd = buf.readUInt32LE(at)
    commands.push({ cmd, name: LC_NAMES[cmd] ?? `0x${cmd.toString(16)}`, at, size: buf.readUInt32LE(at + 4) })
    at += buf.readUInt32LE(at + 4)
  }
  return { header, commands }
}

/**
 * Verifies the code signature (`LC_CODE_SIGNATURE`) the way the kernel does page by page:
 * the CodeDirectory's hash of every page of the file before the signature must match.
 * Returns what was checked; throws on a mismatch.
 */
export function verifyCodeSignature(buf, command) {
  const dataoff = buf.readUInt32LE(command.at + 8)
  const datasize = buf.readUInt32LE(command.at + 12)
  const sig = buf.subarray(dataoff, dataoff + datasize)
  if (sig.readUInt32BE(0) !== 0xfade0cc0) throw new Error('the signature is not an embedded signature SuperBlob')
  const blobs = []
  for (let i = 0; i < sig.readUInt32BE(8); i++) blobs.push({ type: sig.readUInt32BE(12 + 8 * i), offset: sig.readUInt32BE(16 + 8 * i) })
  const directory = blobs.find((b) => b.type === 0)
  if (!directory) throw new Error('the signature has no CodeDirectory')
  const cd = sig.subarray(directory.offset)
  if (cd.readUInt32BE(0) !== 0xfade0c02) throw new Error('bad CodeDirectory magic')
  const flags = cd.readUInt32BE(12)
  const hashOffset = cd.readUInt32BE(16)
  const identifier = cstring(cd, cd.readUInt32BE(20))
  const nCodeSlots = cd.readUInt32BE(28)
  const codeLimit = cd.readUInt32BE(32)
  const hashSize = cd[36]
  const hashType = cd[37]
  const pageSize = 2 ** cd[39]
  const algorithm = { 1: 'sha1', 2: 'sha256' }[hashType]
  if (!algorithm) throw new Error(`unknown hash type ${hashType}`)
  if (codeLimit !== dataoff) throw new Error(`the signature covers ${codeLimit} bytes, the code ends at ${dataoff}`)
  if (nCodeSlots !== Math.ceil(codeLimit / pageSize)) throw new Error(`${nCodeSlots} page hashes for ${codeLimit} bytes`)
  for (let page = 0; page < nCodeSlots; page++) {
    const start = page * pageSize
    const hash = createHash(algorithm).update(buf.subarray(start, Math.min(start + pageSize, codeLimit))).digest()
    const recorded = cd.subarray(hashOffset + page * hashSize, hashOffset + (page + 1) * hashSize)
    if (!hash.subarray(0, hashSize).equals(recorded)) throw new Error(`page ${page} (bytes ${start}…) does not match its hash`)
  }
  const CS_ADHOC = 0x2
  const CS_LINKER_SIGNED = 0x20000
  return {
    adhoc: (flags & CS_ADHOC) !== 0,
    linkerSigned: (flags & CS_LINKER_SIGNED) !== 0,
    identifier,
    hash: algorithm,
    pageSize,
    pages: nCodeSlots,
  }
}

/** The symbol table: defined external symbols, and undefined ones with their library. */
function symbols(buf, symtab, dylibs) {
  const symoff = buf.readUInt32LE(symtab.at + 8)
  const nsyms = buf.readUInt32LE(symtab.at + 12)
  const stroff = buf.readUInt32LE(symtab.at + 16)
  const defined = []
  const undefinedSymbols = []
  for (let i = 0; i < nsyms; i++) {
    const at = symoff + 16 * i
    const name = cstring(buf, stroff + buf.readUInt32LE(at))
    const type = buf[at + 4]
    const desc = buf.readUInt16LE(at + 6)
    if ((type & 0xe0) !== 0 || (type & 0x01) === 0) continue // debugging entries, local symbols
    if ((type & 0x0e) === 0x0) {
      const ordinal = desc >> 8
      const from = ordinal === 0xfe ? 'looked up in any image (flat namespace)' : dylibs[ordinal - 1]
      undefinedSymbols.push({ name, from })
    } else defined.push(name)
  }
  return { defined, undefinedSymbols }
}

function checkMachO(target, file) {
  const buf = readFileSync(file)
  const { header, commands } = loadCommands(buf)
  if (header.cpu !== MACHO_CPU[target.rust]) fail(target, `architecture ${header.cpu}`)
  if (header.filetype !== 6) fail(target, `file type ${header.filetype}, not a dylib`)
  const MH_TWOLEVEL = 0x80
  if (!(header.flags & MH_TWOLEVEL)) fail(target, 'not linked with two-level namespaces')
  const dylibs = commands.filter((c) => c.cmd === LC.LOAD_DYLIB).map((c) => cstring(buf, c.at + buf.readUInt32LE(c.at + 8)))
  const id = commands.find((c) => c.cmd === LC.ID_DYLIB)
  const installName = id && cstring(buf, id.at + buf.readUInt32LE(id.at + 8))
  if (installName !== `@rpath/${binaryName(target)}`) fail(target, `install name ${installName}`)
  const build = commands.find((c) => c.cmd === LC.BUILD_VERSION)
  if (!build) fail(target, 'no LC_BUILD_VERSION')
  const MACOS = 1
  if (buf.readUInt32LE(build.at + 8) !== MACOS) fail(target, `platform ${buf.readUInt32LE(build.at + 8)}, not macOS`)
  const minos = version(buf.readUInt32LE(build.at + 12))
  if (minos !== MACOS_MIN[target.rust]) fail(target, `minimum macOS ${minos}, expected ${MACOS_MIN[target.rust]}`)
  const { defined, undefinedSymbols } = symbols(buf, commands.find((c) => c.cmd === LC.SYMTAB), dylibs)
  // What dyld sees: the exports trie (the symbol table could list more than it exports).
  const trie = tool(LLVM_TOOLS.objdump, ['--macho', '--exports-trie', file])
  const exports = [...trie.matchAll(/^0x[0-9A-F]+\s+(\S+)/gim)].map((m) => m[1].replace(/^_/, ''))
  if (defined.join() !== `_${EXPORT}`) fail(target, `defines ${defined.join(', ')}`)
  const unbound = undefinedSymbols.filter((s) => s.from !== '/usr/lib/libSystem.B.dylib')
  if (unbound.length) fail(target, `symbols not bound to libSystem: ${unbound.map((s) => `${s.name} (${s.from})`).join(', ')}`)
  const signature = commands.find((c) => c.cmd === LC.CODE_SIGNATURE)
  let codeSignature = null
  if (signature) codeSignature = verifyCodeSignature(buf, signature)
  if (target.rust.startsWith('aarch64') && !codeSignature?.adhoc) fail(target, 'Apple silicon needs an ad-hoc signature')
  return {
    machine: header.cpu,
    exports,
    undefinedSymbols: undefinedSymbols.map((s) => s.name.replace(/^_/, '')),
    needs: dylibs,
    macosMin: minos,
    sdk: version(buf.readUInt32LE(build.at + 16)),
    loadCommands: commands.map((c) => c.name),
    codeSignature,
  }
}

/** Checks `file`, the binary of `target`; returns its facts, throws on a failure. */
export function checkBinary(target, file) {
  const facts = { elf: checkElf, pe: checkPe, macho: checkMachO }[target.format](target, file)
  if (facts.exports.join() !== EXPORT) fail(target, `exports ${facts.exports.join(', ') || 'nothing'}, not only ${EXPORT}`)
  const napi = facts.undefinedSymbols.filter((s) => s.startsWith('napi_'))
  if (napi.length) fail(target, `leaves ${napi.join(', ')} to the loader`)
  const summary = [
    facts.machine,
    `exports ${facts.exports.join(', ')}`,
    `needs ${facts.needs.join(', ')}`,
    facts.glibc && `glibc >= ${facts.glibc}`,
    facts.macosMin && `macOS >= ${facts.macosMin}`,
    facts.codeSignature &&
      `${facts.codeSignature.adhoc ? 'ad-hoc ' : ''}signature, ${facts.codeSignature.pages} ${facts.codeSignature.hash} page hashes verified`,
  ].filter(Boolean)
  console.log(`${target.platform}: ${summary.join('; ')}`)
  const { undefinedSymbols, exports, ...kept } = facts
  return { ...kept, imports: undefinedSymbols.length }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let failed = false
  for (const target of selectTargets(process.argv.slice(2))) {
    const file = join(root, 'npm', target.platform, binaryName(target))
    if (!existsSync(file)) {
      console.log(`${target.platform}: not built (npm run release -- ${target.platform})`)
      continue
    }
    try {
      checkBinary(target, file)
    } catch (error) {
      console.error(error.message)
      failed = true
    }
  }
  process.exit(failed ? 1 : 0)
}
