// The SDK's attachments over JSON-RPC against a real `tern serve --stdio` child: a text file in the
// workspace reaches the model inlined; a file outside the workspace, a directory attachment and an
// image for a model without vision are refused with "Invalid params", and nothing is sent then.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ScriptServer, serveScript, textReply } from "@tern/ai/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempHome } from "../../session/test/support/helpers.js";
import type { TernClient } from "../src/index.js";
import { startStdioClient } from "./support/stdio-client.js";

let model: ScriptServer;
let home: ReturnType<typeof tempHome>;
let client: TernClient;
let work: string;

beforeAll(async () => {
  model = await serveScript([textReply("It says ship on Friday.")]);
  home = tempHome("tern-sdk-attach-");
  work = join(home.home, "work");
  mkdirSync(work);
  writeFileSync(join(work, "plan.md"), "ship on Friday\n");
  writeFileSync(join(work, "shot.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]));
  writeFileSync(join(home.home, "secret.txt"), "outside the workspace\n");
  client = await startStdioClient(model.providerUrl, home.home, work);
});

afterAll(async () => {
  await client?.stop();
  await model.close();
  home.cleanup();
});

describe("attachments over JSON-RPC", () => {
  it("inlines a workspace file and refuses what it cannot honour", async () => {
    const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
    const reply = await session.sendAndWait(
      { prompt: "What does the plan say?", attachments: [{ type: "file", path: join(work, "plan.md") }] },
      15_000,
    );
    expect(reply?.data.content).toBe("It says ship on Friday.");
    const body = model.requests[0]!.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages.at(-1)).toMatchObject({
      role: "user",
      content: 'What does the plan say?\n\n<file path="plan.md">\nship on Friday\n</file>',
    });

    const refusals: [unknown, RegExp][] = [
      [
        [{ type: "file", path: join(home.home, "secret.txt") }],
        /attachments\[0\]: .*outside the workspace root/,
      ],
      [[{ type: "directory", path: work }], /only "file" attachments are supported/],
      [
        [{ type: "file", path: "shot.png" }],
        /scripted cannot read images \(shot\.png\); pick a model with vision/,
      ],
      [[{ type: "file", path: "missing.txt" }], /attachments\[0\]: missing\.txt: no such file/],
      ["plan.md", /"attachments" must be an array/],
    ];
    for (const [attachments, message] of refusals) {
      await expect(session.send({ prompt: "look", attachments: attachments as never })).rejects.toThrow(
        message,
      );
    }
    expect(model.requests).toHaveLength(1);
    await session.disconnect();
  });
});
