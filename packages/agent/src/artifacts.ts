// Artifacts: a tool may hand the user a document (HTML or markdown) besides its result. Events
// carry the artifact whole; the model sees only a short note that it was generated and shown, so
// it does not spend tokens echoing the document back.

import type { ToolResultMessage } from "@tern/ai";
import type { AgentMessage, Artifact } from "./types.js";

const KINDS: ReadonlySet<string> = new Set(["html", "markdown"]);

/** The artifact a tool returned, if it is well formed (name, kind "html" | "markdown", string content). */
export function readArtifact(value: unknown): Artifact | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { name, kind, content } = value as Record<string, unknown>;
  if (typeof name !== "string" || name.trim() === "" || typeof content !== "string") return undefined;
  if (typeof kind !== "string" || !KINDS.has(kind)) return undefined;
  return { name, kind: kind as Artifact["kind"], content };
}

/** What the model reads instead of the artifact. */
export function artifactNote(artifact: Artifact): string {
  const size = artifact.content.length.toLocaleString("en-US");
  return `[Artifact "${artifact.name}" (${artifact.kind}, ${size} characters) was generated and shown to the user. Do not repeat its content; refer to it by name.]`;
}

/** The artifact a tool result message carries (kept on the message for sessions and UIs). */
export function artifactOf(message: AgentMessage): Artifact | undefined {
  if ((message as { role?: unknown }).role !== "toolResult") return undefined;
  return (message as ToolResultMessage & { artifact?: Artifact }).artifact;
}
