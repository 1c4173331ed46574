// The model's context as a pure function of the entries and a leaf: walk leaf to root, apply the
// latest compaction on that path, turn summaries and custom messages into user messages.
import type { Message } from "@tern/ai";
import { SessionTree } from "./tree.js";
import type {
  BranchSummaryEntry,
  CompactionEntry,
  CustomMessageEntry,
  ModelRef,
  SessionContext,
  SessionEntry,
} from "./types.js";

export interface ContextOptions {
  /** The message a compaction becomes. Default: a user message framing the summary. */
  compactionMessage?: (entry: CompactionEntry) => Message;
  /** The message a branch summary becomes. Default: a user message framing the summary. */
  branchSummaryMessage?: (entry: BranchSummaryEntry) => Message;
}

export const COMPACTION_PREFIX = "The conversation before this point was compacted into this summary:\n\n";
export const BRANCH_SUMMARY_PREFIX = "Summary of a branch this conversation left and came back from:\n\n";

export function defaultCompactionMessage(entry: CompactionEntry): Message {
  return userText(COMPACTION_PREFIX + entry.summary, entry.timestamp);
}

export function defaultBranchSummaryMessage(entry: BranchSummaryEntry): Message {
  return userText(BRANCH_SUMMARY_PREFIX + entry.summary, entry.timestamp);
}

export function buildSessionContext(
  entries: SessionTree | readonly SessionEntry[],
  leafId: string | null,
  options: ContextOptions = {},
): SessionContext {
  const tree = entries instanceof SessionTree ? entries : new SessionTree(entries);
  const path = tree.path(leafId);
  let model: ModelRef | undefined;
  let thinkingLevel: SessionContext["thinkingLevel"] = "off";
  let compactionAt = -1;
  for (let i = 0; i < path.length; i++) {
    const entry = path[i]!;
    if (entry.type === "model_change") model = { provider: entry.provider, modelId: entry.modelId };
    else if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
    else if (entry.type === "compaction") compactionAt = i;
    else if (entry.type === "message" && entry.message.role === "assistant")
      model = { provider: entry.message.provider, modelId: entry.message.model };
  }

  const messages: Message[] = [];
  const entryIds: string[] = [];
  const emit = (entry: SessionEntry) => {
    const message = toMessage(entry, options);
    if (!message) return;
    messages.push(message);
    entryIds.push(entry.id);
  };

  if (compactionAt < 0) {
    for (const entry of path) emit(entry);
  } else {
    const compaction = path[compactionAt] as CompactionEntry;
    const found = path.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
    const firstKept = found >= 0 && found < compactionAt ? found : compactionAt;
    const pinned = new Set(compaction.pinnedEntryIds ?? []);
    for (let i = 0; i < firstKept; i++) if (pinned.has(path[i]!.id)) emit(path[i]!);
    const summary = compaction.messages ?? [
      (options.compactionMessage ?? defaultCompactionMessage)(compaction),
    ];
    for (const message of summary) {
      messages.push(message);
      entryIds.push(compaction.id);
    }
    for (let i = firstKept; i < path.length; i++) if (i !== compactionAt) emit(path[i]!);
  }
  return model ? { messages, entryIds, model, thinkingLevel } : { messages, entryIds, thinkingLevel };
}

function toMessage(entry: SessionEntry, options: ContextOptions): Message | undefined {
  switch (entry.type) {
    case "message":
      return entry.message;
    case "custom_message":
      return customMessage(entry);
    case "branch_summary":
      return (options.branchSummaryMessage ?? defaultBranchSummaryMessage)(entry);
    default:
      // Older compactions are superseded by the latest one; the rest is not for the model.
      return undefined;
  }
}

function customMessage(entry: CustomMessageEntry): Message {
  return { role: "user", content: entry.content, timestamp: Date.parse(entry.timestamp) };
}

function userText(text: string, timestamp: string): Message {
  return { role: "user", content: [{ type: "text", text }], timestamp: Date.parse(timestamp) };
}
