// Readers for the request bodies a scripted server recorded, so tests assert on what tern sent
// without each one re-declaring the Chat Completions message shape.

/** One chat message of a Chat Completions request body. */
export interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id?: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The chat messages of a recorded Chat Completions request body (none when it has no list). */
export function wireMessages(body: unknown): WireMessage[] {
  const messages = (body as { messages?: unknown } | null)?.messages;
  return Array.isArray(messages) ? (messages as WireMessage[]) : [];
}

/** A message's text: its string content, or its text parts joined. */
export function contentText(message: WireMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? "").join("");
  return "";
}
