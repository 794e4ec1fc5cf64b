// The agents the lab runs, by name.
import claude from './claude.mjs'
import codex from './codex.mjs'
import { copilot, copilotAnthropic, copilotChat } from './copilot.mjs'
import { kilo, opencode } from './opencode.mjs'
import pi from './pi.mjs'
import qwen from './qwen.mjs'

export const TOOLS = Object.fromEntries(
  [codex, claude, copilot, copilotAnthropic, copilotChat, pi, qwen, opencode, kilo].map((t) => [t.name, t]),
)
