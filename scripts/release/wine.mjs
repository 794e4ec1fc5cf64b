// The Wine prefix the Windows package is tested in (test-platforms.mjs), made on first use
// under XBUILD_DIR/wine:
//
// - reported as Windows 10 (`winecfg -v win10`): Node 20 refuses older Windows;
// - with a `bcryptprimitives.dll` of our own in system32: Rust's standard library takes
//   its random numbers from `ProcessPrng` there, which every Windows Node 20 supports has,
//   and Wine 8 lacks. Ours is a few lines over `SystemFunction036` (RtlGenRandom), built
//   with MinGW. It only serves the tests; the released binary is not changed.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { xbuild } from './toolchain.mjs'

const WINE = '/usr/lib/wine/wine64'
const prefix = join(xbuild, 'wine')

const SHIM = `// bcryptprimitives.dll for Wine 8, test-only: see scripts/release/wine.mjs.
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
`

/** The environment Wine runs in: its prefix, and no debugging output. */
export function wineEnv() {
  ensurePrefix()
  return { WINEPREFIX: prefix, WINEDEBUG: '-all', WINEARCH: 'win64' }
}

/** A Unix path as Windows programs under Wine see it (drive Z: is the root). */
export const winPath = (path) => `Z:${path.replaceAll('/', '\\')}`

function run(command, args, env = {}) {
  const done = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', ...env } })
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${done.status ?? done.signal})`)
}

function ensurePrefix() {
  const system32 = join(prefix, 'drive_c', 'windows', 'system32')
  const shim = join(system32, 'bcryptprimitives.dll')
  if (existsSync(shim)) return
  mkdirSync(prefix, { recursive: true })
  console.log(`Making the Wine prefix ${prefix} (once)`)
  run(WINE, ['wineboot', '--init'])
  run(WINE, ['winecfg', '-v', 'win10'])
  const source = join(xbuild, 'bcryptprimitives.c')
  writeFileSync(source, SHIM)
  run('x86_64-w64-mingw32-gcc', ['-shared', '-O2', '-s', '-o', shim, source, '-ladvapi32'])
}
