// The agents the lab runs, by name.
import { ACP_TOOLS } from './acp.mjs'
import claude from './claude.mjs'
import codex from './codex.mjs'
import codexAppServer from './codex-app-server.mjs'
import { copilot, copilotAnthropic, copilotChat } from './copilot.mjs'
import { kilo, opencode } from './opencode.mjs'
import pi from './pi.mjs'
import qwen from './qwen.mjs'

export const TOOLS = Object.fromEntries(
  [codex, codexAppServer, claude, copilot, copilotAnthropic, copilotChat, pi, qwen, opencode, kilo, ...ACP_TOOLS].map((t) => [t.name, t]),
)
