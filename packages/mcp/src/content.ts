// MCP tool results as tern tool results. The model reads text and images; resource links and
// embedded resources become text that names them (binary bodies are described, not pasted);
// `structuredContent` is kept in details and, when the server sent no text, shown as JSON.
// `isError` becomes a failed result.

import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { AgentToolResult } from "@tern/agent";
import type { UserContent } from "@tern/ai";

export interface McpResultDetails {
  server: string;
  tool: string;
  structuredContent?: Record<string, unknown>;
  /** Counts of content kinds that could only be described (audio, binary resources). */
  described?: number;
}

export function toToolResult(
  result: CallToolResult,
  source: { server: string; tool: string },
): AgentToolResult<McpResultDetails> {
  const parts: UserContent[] = [];
  let described = 0;
  for (const block of result.content ?? []) {
    const part = toPart(block);
    if (part.described) described++;
    parts.push(part.content);
  }
  const details: McpResultDetails = { ...source };
  if (result.structuredContent !== undefined) {
    details.structuredContent = result.structuredContent;
    if (!parts.some((part) => part.type === "text")) {
      parts.push({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) });
    }
  }
  if (described > 0) details.described = described;
  return { content: parts, details, isError: result.isError === true };
}

/** A content block as text: images, audio and binary resources described, never pasted. */
export function contentAsText(block: ContentBlock): string {
  const part = toPart(block).content;
  if (part.type === "text") return part.text;
  if (part.type === "image") return `[image (${part.mimeType}, ${base64Bytes(part.data)} bytes) not shown]`;
  return "[content not shown]";
}

function toPart(block: ContentBlock): { content: UserContent; described?: boolean } {
  switch (block.type) {
    case "text":
      return { content: { type: "text", text: block.text } };
    case "image":
      return { content: { type: "image", data: block.data, mimeType: block.mimeType } };
    case "audio":
      return {
        content: {
          type: "text",
          text: `[audio (${block.mimeType}, ${base64Bytes(block.data)} bytes) not shown]`,
        },
        described: true,
      };
    case "resource_link": {
      const extra = [block.mimeType, block.description].filter(Boolean).join("; ");
      const label = block.title ?? block.name;
      return {
        content: {
          type: "text",
          text: `[resource link: ${label} <${block.uri}>${extra ? ` ${extra}` : ""}]`,
        },
      };
    }
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string") {
        return { content: { type: "text", text: `[resource ${resource.uri}]\n${resource.text}` } };
      }
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      const mimeType = resource.mimeType ?? "application/octet-stream";
      if (mimeType.startsWith("image/") && blob !== "") {
        return { content: { type: "image", data: blob, mimeType } };
      }
      return {
        content: {
          type: "text",
          text: `[resource ${resource.uri} (${mimeType}, ${base64Bytes(blob)} bytes) not shown]`,
        },
        described: true,
      };
    }
    default:
      return {
        content: {
          type: "text",
          text: `[content of type ${JSON.stringify((block as { type: unknown }).type)} not shown]`,
        },
        described: true,
      };
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
