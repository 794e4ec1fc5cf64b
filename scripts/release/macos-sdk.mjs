// A stub macOS SDK, written by us: text stubs (`.tbd`) naming the libraries the addon
// links against and the symbols it takes from them, which is all a linker needs of an
// SDK. Apple's SDK cannot be redistributed or fetched from a registry; the addon needs
// only the C library, so a few dozen names do.
//
// The list is the symbols the addon imports, read from a link (`llvm-nm -u`). A new one
// (a new dependency, a newer standard library) fails the link with "undefined symbol":
// add it here. Every name is in macOS's libSystem on all versions the addon supports.
import { mkdirSync, symlinkSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

// The C library, threads, dynamic loading, unwinding: all in /usr/lib/libSystem.B.dylib.
export const LIBSYSTEM_SYMBOLS = [
  '_CCRandomGenerateBytes', '__Unwind_Backtrace', '__Unwind_DeleteException',
  '__Unwind_GetDataRelBase', '__Unwind_GetIP', '__Unwind_GetIPInfo',
  '__Unwind_GetLanguageSpecificData', '__Unwind_GetRegionStart', '__Unwind_GetTextRelBase',
  '__Unwind_RaiseException', '__Unwind_Resume', '__Unwind_SetGR', '__Unwind_SetIP',
  '___error', '__dyld_get_image_header', '__dyld_get_image_name',
  '__dyld_get_image_vmaddr_slide', '__dyld_image_count', '__tlv_atexit', '__tlv_bootstrap',
  '_abort', '_bzero', '_calloc', '_clock_gettime', '_close', '_closedir', '_dirfd',
  '_dispatch_release', '_dispatch_semaphore_create', '_dispatch_semaphore_signal',
  '_dispatch_semaphore_wait', '_dladdr', '_dlclose', '_dlerror', '_dlopen', '_dlsym',
  '_free', '_fstat', '_getcwd', '_getentropy', '_getenv', '_lseek', '_malloc', '_memcmp',
  '_memcpy', '_memmove', '_memset', '_memset_pattern16', '_mmap', '_mprotect', '_munmap', '_open', '_opendir',
  '_pause', '_posix_memalign', '_pthread_attr_destroy', '_pthread_attr_init',
  '_pthread_attr_setstacksize', '_pthread_cond_broadcast', '_pthread_cond_destroy',
  '_pthread_cond_signal', '_pthread_cond_wait', '_pthread_create', '_pthread_detach',
  '_pthread_get_stackaddr_np', '_pthread_get_stacksize_np', '_pthread_mutex_destroy',
  '_pthread_mutex_init', '_pthread_mutex_lock', '_pthread_mutex_trylock',
  '_pthread_mutex_unlock', '_pthread_mutexattr_destroy', '_pthread_mutexattr_init',
  '_pthread_mutexattr_settype', '_pthread_self', '_pthread_setname_np',
  '_pthread_threadid_np', '_read', '_readdir_r', '_realloc', '_sigaltstack', '_stat', '_strerror_r',
  '_strlen', '_sysconf', '_write', '_writev',
  // Intel only: the variants the x86_64 C library binds its 64-bit-inode and
  // non-cancelable calls to.
  '___bzero', '_close$NOCANCEL', '_fstat$INODE64', '_opendir$INODE64', '_readdir_r$INODE64',
  '_stat$INODE64',
  // The lazy binder the linker's stubs call; C-named, without the leading underscore.
  'dyld_stub_binder',
]

const ARCHS = ['x86_64-macos', 'arm64-macos']

function tbd(installName, symbols) {
  const list = (names) => `[ ${names.map((n) => `'${n}'`).join(', ')} ]`
  return [
    '--- !tapi-tbd',
    'tbd-version:     4',
    `targets:         ${list(ARCHS)}`,
    `install-name:    '${installName}'`,
    'current-version: 1311',
    ...(symbols.length
      ? ['exports:', `  - targets:         ${list(ARCHS)}`, `    symbols:         ${list(symbols)}`]
      : []),
    '...',
    '',
  ].join('\n')
}

/** Writes the SDK into `dir` (its `usr/lib`) and returns `dir`, for `SDKROOT`. */
export function writeMacosSdk(dir) {
  const lib = join(dir, 'usr', 'lib')
  mkdirSync(lib, { recursive: true })
  writeFileSync(join(lib, 'libSystem.tbd'), tbd('/usr/lib/libSystem.B.dylib', [...LIBSYSTEM_SYMBOLS].sort()))
  // rustc's standard library asks for these by name; on macOS they are libSystem.
  for (const alias of ['libc', 'libm', 'libpthread', 'libdl']) {
    if (!existsSync(join(lib, `${alias}.tbd`))) symlinkSync('libSystem.tbd', join(lib, `${alias}.tbd`))
  }
  // The standard library links libiconv and takes nothing from it.
  writeFileSync(join(lib, 'libiconv.tbd'), tbd('/usr/lib/libiconv.2.dylib', []))
  return dir
}
