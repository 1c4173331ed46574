// MCP content kinds that the reference servers do not all send (audio, binary and image
// resources, structured content without text).

import { describe, expect, it } from "vitest";
import { toToolResult } from "../src/content.js";

const SOURCE = { server: "s", tool: "t" };

describe("MCP results as tool results", () => {
  it("describe audio and binary resources instead of pasting them, and pass image resources as images", () => {
    const result = toToolResult(
      {
        content: [
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.bin", blob: "AAAA", mimeType: "application/zip" } },
          { type: "resource", resource: { uri: "file:///a.png", blob: "iVBO", mimeType: "image/png" } },
        ],
      },
      SOURCE,
    );
    expect(result.content).toEqual([
      { type: "text", text: "[audio (audio/wav, 3 bytes) not shown]" },
      { type: "text", text: "[resource file:///a.bin (application/zip, 3 bytes) not shown]" },
      { type: "image", data: "iVBO", mimeType: "image/png" },
    ]);
    expect(result.details).toEqual({ ...SOURCE, described: 2 });
    expect(result.isError).toBe(false);
  });

  it("show structured content as JSON when there is no text, and keep it in details", () => {
    const result = toToolResult({ content: [], structuredContent: { temperature: 21 } }, SOURCE);
    expect(result.content).toEqual([{ type: "text", text: '{\n  "temperature": 21\n}' }]);
    expect(result.details).toEqual({ ...SOURCE, structuredContent: { temperature: 21 } });
  });

  it("mark isError results as failed", () => {
    expect(toToolResult({ content: [{ type: "text", text: "no" }], isError: true }, SOURCE).isError).toBe(
      true,
    );
  });
});
