import type { ToolResultMessage, UserContent } from "@tern/ai";
import { artifactNote, readArtifact } from "./artifacts.js";
import type { AgentToolResult, Artifact, ToolOutcome } from "./types.js";

const NO_OUTPUT = "(no output)";

/**
 * Brings whatever a tool (or hook) returned into one shape. Empty output becomes an explicit
 * "(no output)" so the model never sees a blank result and wonders whether the call happened.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: handlers that return nothing must fit
export function normalizeToolResult(value: AgentToolResult | string | undefined | null | void): ToolOutcome {
  if (value === undefined || value === null) return textOutcome(NO_OUTPUT, false);
  if (typeof value === "string") return textOutcome(value === "" ? NO_OUTPUT : value, false);
  let content: UserContent[] =
    typeof value.content === "string"
      ? [{ type: "text" as const, text: value.content }]
      : (value.content ?? []);
  const artifact = readArtifact(value.artifact);
  if (artifact) {
    const note = { type: "text" as const, text: artifactNote(artifact) };
    // A hook that passes a result through keeps its note; it is not added twice.
    if (isEmpty(content)) content = [note];
    else if (!content.some((part) => part.type === "text" && part.text === note.text))
      content = [...content, note];
  }
  const outcome: ToolOutcome = {
    content: isEmpty(content) ? [{ type: "text", text: NO_OUTPUT }] : content,
    isError: value.isError === true,
    terminate: value.terminate === true,
  };
  if (value.details !== undefined) outcome.details = value.details;
  if (artifact) outcome.artifact = artifact;
  return outcome;
}

export function errorOutcome(text: string, terminate = false): ToolOutcome {
  return { content: [{ type: "text", text }], isError: true, terminate };
}

/** "<ErrorName>: <message>" for anything thrown. */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return `${error.name || "Error"}: ${error.message}`;
  if (typeof error === "string") return `Error: ${error}`;
  try {
    return `Error: ${JSON.stringify(error)}`;
  } catch {
    return `Error: ${String(error)}`;
  }
}

export function toolResultMessage(
  toolCallId: string,
  toolName: string,
  outcome: ToolOutcome,
  timestamp: number,
): ToolResultMessage {
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId,
    toolName,
    content: outcome.content,
    isError: outcome.isError,
    timestamp,
  };
  if (outcome.details !== undefined) message.details = outcome.details;
  // Kept on the message (providers ignore it) so sessions and UIs can show the artifact again.
  if (outcome.artifact) (message as ToolResultMessage & { artifact?: Artifact }).artifact = outcome.artifact;
  return message;
}

function textOutcome(text: string, isError: boolean): ToolOutcome {
  return { content: [{ type: "text", text }], isError, terminate: false };
}

function isEmpty(content: UserContent[]): boolean {
  for (const part of content) {
    if (part.type !== "text" || part.text.trim() !== "") return false;
  }
  return true;
}
