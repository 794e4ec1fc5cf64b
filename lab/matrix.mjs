// The versions the full lab runs, and why each one. Codex: one per rollout generation the
// registry still holds; the others: the oldest that points at a local endpoint, a middle
// one, the latest.

export const MATRIX = {
  codex: [
    ['0.1.2504172351', 'the TypeScript CLI (single-JSON rollouts)'],
    ['0.20.0', 'Rust, bare SessionMeta / ResponseItem lines (before the envelope)'],
    ['0.34.0', 'the last bare-line generation before the {type, payload} envelope'],
    ['0.39.0', 'the {timestamp, type, payload} envelope'],
    ['0.138.0', 'the envelope with agent_reasoning events (before 0.139)'],
    ['0.139.0', 'reasoning only in response_item; base_instructions'],
    ['0.144.1', 'world_state lines'],
    ['0.146.1', 'the last before item_completed'],
    ['0.147.0', 'event_msg item_completed with PascalCase items, ordinal'],
    ['0.149.1', 'item_completed settled'],
    ['0.171.0', 'the latest'],
  ],
  // Codex as GUIs drive it (`codex app-server`, protocol v2).
  'codex-app-server': [
    ['0.58.0', 'the first whose v2 server sends items (0.57 has thread/start and turn/start, no item notifications)'],
    ['0.147.0', 'a middle one: thread/read, no command items stored'],
    ['0.171.0', 'the latest'],
  ],
  claude: [
    ['2.0.0', 'the first 2.0'],
    ['2.1.1', 'an early 2.1'],
    ['2.1.197', 'a middle 2.1'],
    ['2.1.332', 'the latest'],
  ],
  copilot: [
    ['0.0.423', 'the last 0.0: no BYOK, asks for a GitHub sign-in'],
    ['1.0.6', 'no BYOK yet'],
    ['1.0.7', 'the first after 1.0.6'],
    ['1.0.10', 'BYOK, on Node 24 from the registry (it refuses Node 20)'],
    ['1.0.11', 'BYOK on Node 20'],
    ['1.0.20', 'an early BYOK version'],
    ['1.0.50', 'a middle 1.0'],
    ['1.0.102', 'the latest'],
  ],
  'copilot-anthropic': [['1.0.102', 'the latest, speaking the Messages API']],
  'copilot-chat': [['1.0.102', 'the latest, speaking chat completions']],
  pi: [
    ['0.37.8', 'an older pi'],
    ['0.73.1', 'the latest'],
  ],
  qwen: [
    ['0.15.10', 'an older Qwen Code'],
    ['0.24.4', 'the latest'],
  ],
  // The ACP agents (lab/tools/acp.mjs), each driven by the lab's ACP client.
  'codex-acp': [
    // 0.3.1, the first, names its platform packages without the scope, and none of them is
    // on the registry: it installs without a binary.
    ['0.4.4', 'the oldest that runs (config.toml providers, as every version)'],
    ['0.9.5', 'a middle one'],
    ['0.16.0', 'the latest'],
  ],
  'claude-acp': [
    ['0.17.1', 'the oldest under this name (earlier: @zed-industries/claude-code-acp)'],
    ['0.20.2', 'a middle one'],
    ['0.23.1', 'the latest'],
  ],
  'qwen-acp': [['0.24.4', 'the latest, --acp']],
  'gemini-acp': [['0.61.0', 'the latest, --acp, on the lab\'s Gemini API route (GOOGLE_GEMINI_BASE_URL)']],
  'opencode-acp': [['1.18.33', 'the latest, opencode acp']],
  'kilo-acp': [['7.7.7', 'the newest that installs, kilo acp']],
  opencode: [
    // 0.1.174 and 0.5.29 do not run offline: each stops with "Unable to connect" (a fetch
    // of its own) before the first model request of a prompt, 0.1.174 at start.
    ['0.1.174', 'the oldest on the registry (AI SDK 4); stops at start without the network'],
    ['0.5.29', 'no run --format json, export, prompt_async or /global/event; its prompt stops without the network'],
    ['1.0.0', 'the oldest that runs offline: run --format json and export; no prompt_async, no /global/event'],
    ['1.1.65', 'the last before SQLite (<1.2): the legacy storage/ JSON tree'],
    ['1.14.34', 'a middle one: SQLite'],
    ['1.18.33', 'the latest'],
  ],
  kilo: [['7.7.7', 'the latest whose Linux binary the registry holds (7.8.1 has no platform packages)']],
}

/** The small set a quick run uses: one version per tool (the offline test reads committed captures). */
export const QUICK = {
  tools: { codex: ['0.171.0'], claude: ['2.1.332'], copilot: ['1.0.102'], pi: ['0.73.1'], qwen: ['0.24.4'], opencode: ['1.18.33'], kilo: ['7.7.7'] },
  scenarios: ['text', 'tool', 'unicode'],
}
