// What a session remembers of the command that made it, so `tern sessions resume ID` and
// `tern run -s ID` go on without the flags retyped: the provider, model and base URL it talked to,
// its toolset, tool mode, strategy, answer mode and thinking level. Kept in the session header's
// `settings`; a flag given now wins over what was recorded. Never a key or a header value, and a
// base URL is recorded only without credentials or a query string (where keys tend to hide).

import { RUN_STRATEGIES } from "@tern/agent";
import type { Model } from "@tern/ai";
import { ANSWER_MODES, THINKING_LEVELS, TOOL_MODES, TOOLSETS } from "../config/config-file.js";
import type { AgentSettings } from "../config/settings.js";

/**
 * Recorded setting → its flag, the values it may take, and any other flag that overrides it
 * (a --policy may set the synthesis policy, which the answer mode is the older name of).
 */
const REMEMBERED = {
  tools: { flag: "tools", allowed: TOOLSETS },
  toolMode: { flag: "tool-mode", allowed: TOOL_MODES },
  strategy: { flag: "strategy", allowed: RUN_STRATEGIES },
  answerMode: { flag: "answer-mode", allowed: ANSWER_MODES, also: "policy" },
  thinking: { flag: "thinking", allowed: THINKING_LEVELS },
} as const satisfies Record<string, { flag: string; allowed: readonly string[]; also?: string }>;

type Remembered = keyof typeof REMEMBERED;

/** The record a new session's header keeps. */
export function sessionSettings(model: Model, settings: AgentSettings): Record<string, string> {
  const record: Record<string, string> = { provider: model.provider, model: model.id };
  const baseUrl = model.baseUrl !== undefined ? recordableUrl(model.baseUrl) : undefined;
  if (baseUrl !== undefined) record.baseUrl = baseUrl;
  for (const name of Object.keys(REMEMBERED) as Remembered[]) {
    const value = settings[name];
    if (value !== undefined) record[name] = value;
  }
  return record;
}

/**
 * `settings` with what `recorded` remembers filled in where no flag says otherwise. Values this
 * tern does not know (a newer one wrote them, or a hand edit) are skipped with a warning.
 */
export function withSessionSettings(
  settings: AgentSettings,
  recorded: Record<string, string> | undefined,
  warn: (message: string) => void,
): AgentSettings {
  if (!recorded) return settings;
  const out: AgentSettings = { ...settings };
  for (const name of Object.keys(REMEMBERED) as Remembered[]) {
    const entry: { flag: string; allowed: readonly string[]; also?: string } = REMEMBERED[name];
    const { flag, allowed, also } = entry;
    const value = recorded[name];
    if (value === undefined || settings.flags.includes(flag)) continue;
    if (also !== undefined && settings.flags.includes(also)) continue;
    if (allowed.includes(value)) Object.assign(out, { [name]: value });
    else
      warn(
        `the session's recorded ${flag} ${JSON.stringify(value)} is not one tern knows; using ${settings[name] ?? "the default"}`,
      );
  }
  // The answer mode is the synthesis policy's older name: the loop reads the policy.
  if (out.answerMode !== settings.answerMode) {
    const synthesis = settings.policies.synthesis!;
    out.policies = { ...settings.policies, synthesis: { ...synthesis, on: out.answerMode === "synthesize" } };
  }
  return out;
}

/** The model to go on with: provider and id from the conversation, else from the record. */
export function resumedModel(
  settings: AgentSettings,
  recorded: Record<string, string> | undefined,
  fromConversation: { provider: string; modelId: string } | undefined,
): { model?: { provider: string; modelId: string }; baseUrl?: string } {
  const fromRecord =
    recorded?.provider !== undefined && recorded.model !== undefined
      ? { provider: recorded.provider, modelId: recorded.model }
      : undefined;
  const model = fromConversation ?? fromRecord;
  // --base-url wins; then the recorded one (for the same provider); then environment and config.
  const recordedUrl =
    model && recorded?.baseUrl !== undefined && recorded.provider === model.provider
      ? recorded.baseUrl
      : undefined;
  const baseUrl = settings.flags.includes("base-url") ? settings.baseUrl : (recordedUrl ?? settings.baseUrl);
  return { ...(model ? { model } : {}), ...(baseUrl !== undefined ? { baseUrl } : {}) };
}

function recordableUrl(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.username !== "" || url.password !== "" || url.search !== "") return undefined;
    return text;
  } catch {
    return undefined;
  }
}
