/**
 * How an agent is pointed at the lab's model server, shared by the ways it is run here
 * (its own command, its ACP adapter).
 */

/** Claude Code pointed at the lab, as every way of running it here needs. */
export const claudeEnv = (url) => ({
  ANTHROPIC_BASE_URL: url,
  ANTHROPIC_API_KEY: 'lab-key',
  // As root, Claude Code runs tools unattended only in what it is told is a sandbox.
  IS_SANDBOX: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  ANTHROPIC_MODEL: 'claude-sonnet-4-5',
  ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-4-5',
  MAX_THINKING_TOKENS: '4000',
})

/** The lines of Codex's config.toml naming the lab's Responses API as provider `name`. */
export const codexProvider = (name, url) => [
  `[model_providers.${name}]`,
  `name = "${name}"`,
  `base_url = "${url}/v1"`,
  'wire_api = "responses"',
  'env_key = "LAB_API_KEY"',
  'request_max_retries = 0',
  'stream_max_retries = 0',
  '',
]
