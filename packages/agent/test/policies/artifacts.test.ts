import { describe, expect, it } from "vitest";
import { z } from "zod";
import { artifactOf } from "../../src/artifacts.js";
import type { AgentTool } from "../../src/index.js";
import { textOf } from "../helpers.js";
import { afterLastReply, fauxFor, MODES, ofType, replies, run } from "./support.js";

const HTML = "<html><body><h1>Quarterly report</h1></body></html>";
const NOTE =
  '[Artifact "report.html" (html, 51 characters) was generated and shown to the user. Do not repeat its content; refer to it by name.]';

function reporter(result: unknown): AgentTool<Record<string, never>> {
  return {
    name: "report",
    description: "Builds a report",
    parameters: z.object({}),
    execute: () => result as { content: string },
  };
}

for (const mode of MODES) {
  const r = replies(mode);

  describe(`artifacts (${mode})`, () => {
    it("events carry the artifact whole; the model sees a short note instead", async () => {
      const faux = fauxFor(mode, [r.call("report"), r.answer("See the report.")]);
      const tool = reporter({
        content: "Report built.",
        artifact: { name: "report.html", kind: "html", content: HTML },
      });
      const { events, result } = await run(faux, [tool], []);
      const end = ofType(events, "tool_execution_end")[0]!;
      expect(end.result.artifact).toEqual({ name: "report.html", kind: "html", content: HTML });
      const sent = afterLastReply(faux.requests[1]!);
      expect(sent).toContain("Report built.");
      expect(sent).toContain(NOTE);
      expect(sent).not.toContain("Quarterly report");
      expect(artifactOf(result.messages[2]!)).toEqual({ name: "report.html", kind: "html", content: HTML });
    });
  });
}

describe("artifacts", () => {
  it("an artifact alone is a note, not '(no output)'", async () => {
    const faux = fauxFor("native", [replies("native").call("report"), "ok"]);
    const tool = reporter({
      content: "",
      artifact: { name: "notes.md", kind: "markdown", content: "# Notes" },
    });
    const { result } = await run(faux, [tool], []);
    expect(textOf(result.messages[2])).toBe(
      '[Artifact "notes.md" (markdown, 7 characters) was generated and shown to the user. Do not repeat its content; refer to it by name.]',
    );
  });

  it("ignores a malformed artifact", async () => {
    const faux = fauxFor("native", [replies("native").call("report"), "ok"]);
    const tool = reporter({ content: "done", artifact: { name: "x.pdf", kind: "pdf", content: "%PDF" } });
    const { events, result } = await run(faux, [tool], []);
    expect(ofType(events, "tool_execution_end")[0]!.result.artifact).toBeUndefined();
    expect(textOf(result.messages[2])).toBe("done");
  });
});
