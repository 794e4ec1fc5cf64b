// `node:util`'s `inspect`, as far as the failure messages of the tests need it.
export function inspect(value) {
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v === undefined ? '<undefined>' : v))
  } catch {
    return String(value)
  }
}
