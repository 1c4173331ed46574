// `tern run --allow-host` end to end: the flags and config.json's allowHosts/denyHosts reach the
// bash sandbox, the header says the network goes through the host allow-list, an allowed
// loopback server answers curl inside the sandbox, an unlisted one is refused and named in the
// tool result the model reads, and a bad pattern is a usage error before anything starts.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, wireMessages } from "@tern/ai/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { loopbackHttp, SANDBOX_SKIP_REASON } from "../../tools/test/support-sandbox.js";
import { withHostQuestion } from "../src/runtime/host-question.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

describe("--allow-host and --deny-host", () => {
  it("exits 2 for a malformed pattern, from a flag or from config.json", async () => {
    const env = scriptedModelEnv({ baseUrl: "http://127.0.0.1:9" });
    const flag = await runTern(["run", "--allow-host", "foo*.com", "hi"], { env });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--allow-host: host pattern "foo*.com": not a host name or IP address');
    const home = tempDir();
    writeFileSync(join(home, "config.json"), JSON.stringify({ denyHosts: ["evil.com:http"] }));
    const config = await runTern(["run", "hi"], { env: { ...env, TERN_HOME: home } });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('--deny-host: host pattern "evil.com:http": the port must be 1-65535');
  });

  describe.skipIf(SANDBOX_SKIP_REASON !== undefined)(
    `in the sandbox${SANDBOX_SKIP_REASON ? ` (${SANDBOX_SKIP_REASON})` : ""}`,
    () => {
      const servers: Awaited<ReturnType<typeof loopbackHttp>>[] = [];
      afterEach(async () => {
        for (const server of servers.splice(0)) await server.close();
      });

      it("lets bash reach an allowed host and tells the model which host was refused", async () => {
        const allowed = await loopbackHttp("allowed answer");
        const unlisted = await loopbackHttp("unlisted answer");
        servers.push(allowed, unlisted);
        const command = `curl -sS http://127.0.0.1:${allowed.port}/; echo; curl -sS http://127.0.0.1:${unlisted.port}/`;
        const model = await startScriptedModel([
          toolReply([{ name: "bash", args: { command } }]),
          textReply("Done."),
        ]);
        const home = tempDir();
        writeFileSync(join(home, "config.json"), JSON.stringify({ denyHosts: ["evil.example"] }));
        const result = await runTern(
          ["run", "--mode", "bypass", "--allow-host", `127.0.0.1:${allowed.port}`, "fetch both"],
          { env: scriptedModelEnv(model, { TERN_HOME: home }), cwd: tempDir() },
        );
        expect(result.code).toBe(0);
        expect(result.stderr).toContain("· sandbox on, network through the host allow-list ·");
        const tool = contentText(
          wireMessages(model.requests[1]!.body).find((message) => message.role === "tool"),
        );
        expect(tool).toContain("allowed answer");
        expect(tool).not.toContain("unlisted answer");
        expect(tool).toContain(
          `The sandbox refused a network connection to 127.0.0.1:${unlisted.port}: not in the allow-list.`,
        );
      });
    },
  );
});

describe("the proxy's question about a host", () => {
  it("is asked only in mode ask with someone to ask, and carries the host and the command's signal", async () => {
    const questions: unknown[] = [];
    const ended = new AbortController();
    const ask = (request: { summary: string; toolName: string; signal: AbortSignal }) => {
      questions.push([request.toolName, request.summary, request.signal === ended.signal]);
      return { allow: true };
    };
    expect(withHostQuestion({}, "bypass", ask as never).askHost).toBeUndefined();
    expect(withHostQuestion({}, "ask", undefined).askHost).toBeUndefined();
    const askHost = withHostQuestion({ allowHosts: ["a.test"] }, "ask", ask as never).askHost!;
    expect(await askHost({ host: "b.test", port: 443 }, ended.signal)).toBe(true);
    expect(await askHost({ host: "::1", port: 80 }, ended.signal)).toBe(true);
    expect(questions).toEqual([
      ["network", "network: connect to b.test:443 for the rest of the session (not in --allow-host)", true],
      ["network", "network: connect to [::1]:80 for the rest of the session (not in --allow-host)", true],
    ]);
  });
});
