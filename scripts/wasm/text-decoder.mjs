// Injected into the browser module in place of the global `TextDecoder` (esbuild
// `inject`). emnapi makes strings from the module's UTF-16 with
// `new TextDecoder('utf-16le')`, which turns a lone surrogate into U+FFFD; V8 under the
// native addon keeps it, and the reducer must not change a character. So UTF-16 is
// decoded code unit by code unit here; every other encoding is the platform's decoder.
const Platform = globalThis.TextDecoder

const UNITS_PER_CALL = 8192

class ExactUtf16Decoder {
  get encoding() {
    return 'utf-16le'
  }

  decode(bytes) {
    if (bytes === undefined) return ''
    let view = ArrayBuffer.isView(bytes) ? bytes : new Uint8Array(bytes)
    if (view.byteOffset % 2 !== 0) view = new Uint8Array(view)
    const units = new Uint16Array(view.buffer, view.byteOffset, view.byteLength >>> 1)
    if (units.length <= UNITS_PER_CALL) return String.fromCharCode.apply(null, units)
    let text = ''
    for (let at = 0; at < units.length; at += UNITS_PER_CALL) {
      text += String.fromCharCode.apply(null, units.subarray(at, at + UNITS_PER_CALL))
    }
    return text
  }
}

export class TextDecoder {
  constructor(label = 'utf-8', options) {
    if (/^\s*(utf-16|utf-16le)\s*$/i.test(String(label))) return new ExactUtf16Decoder()
    return new Platform(label, options)
  }
}
