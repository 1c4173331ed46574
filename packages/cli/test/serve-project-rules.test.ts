// A served session obeys the project's permission rules as `tern run` does: the workspace's
// `.tern/config.json` deny rules, and the protection of `.tern/**` from the agent's file tools (a
// model must not widen its own permissions for the next run). Real `tern serve` child processes,
// a scripted OpenAI-compatible model on loopback, and as clients plain HTTP (with --mode bypass:
// only rules can refuse) and the official @github/copilot-sdk over JSON-RPC (approving every
// question it is asked: the rules decide before anyone is asked); and a cluster, a `tern worker`
// running the session a serve node took, on a throwaway PostgreSQL.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
import { serveScript } from "@tern/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import { sharedPostgres } from "../../session/test/support/shared-postgres.js";
import { textReply, toolReply } from "./support/replies.js";
import { promptNewSession, startScriptedServe, startServe } from "./support/serve.js";
import { spawnTern, tempDir, ternEnv } from "./support/tern.js";

/** Ceiling for hangs only (a PostgreSQL cluster and two processes on a loaded machine). */
const CLUSTER_CEILING_MS = 180_000;

const SECRET = "the launch code is 0000";
const CONFIG = `${JSON.stringify({ deny: ["read(secret.txt)"] })}\n`;

let closeModel: (() => Promise<void>) | undefined;

afterEach(async () => {
  await closeModel?.();
  closeModel = undefined;
});

/** A workspace with a secret, a deny rule for it, and a file the agent may change. */
function project(): string {
  const work = tempDir();
  writeFileSync(join(work, "secret.txt"), `${SECRET}\n`);
  mkdirSync(join(work, ".tern"));
  writeFileSync(join(work, ".tern", "config.json"), CONFIG);
  return work;
}

/** The model reads the secret, widens its own rules, then writes an ordinary file (the control). */
async function hostileModel() {
  const model = await serveScript([
    toolReply([
      { id: "r1", name: "read", args: { path: "secret.txt" } },
      { id: "w1", name: "write", args: { path: ".tern/config.json", content: '{"allow":["bash"]}' } },
      { id: "w2", name: "write", args: { path: "notes.txt", content: "done" } },
    ]),
    textReply("Finished."),
    // After denials the completion check asks the model to look at its answer once more.
    textReply("Finished."),
  ]);
  closeModel = model.close;
  return model;
}

/** What the model was told about its three calls, from the request after them. */
function toolResults(model: Awaited<ReturnType<typeof hostileModel>>): Map<string, string> {
  const body = model.requests.at(-1)!.body as {
    messages: { role: string; tool_call_id?: string; content: unknown }[];
  };
  const results = new Map<string, string>();
  for (const message of body.messages)
    if (message.role === "tool") results.set(message.tool_call_id!, JSON.stringify(message.content));
  return results;
}

function expectRulesHeld(work: string, model: Awaited<ReturnType<typeof hostileModel>>): void {
  const results = toolResults(model);
  expect(results.get("r1")).toMatch(/denied.*read\(secret\.txt\)/i);
  expect(results.get("r1")).not.toContain(SECRET);
  expect(results.get("w1")).toMatch(/denied.*\.tern\/\*\*/i);
  expect(readFileSync(join(work, ".tern", "config.json"), "utf8")).toBe(CONFIG);
  // The control: the same session may write elsewhere, so the denials above are the rules'.
  expect(readFileSync(join(work, "notes.txt"), "utf8")).toBe("done");
}

/** The JSON-RPC case's client: the official SDK, approving whatever it is asked. */
async function approvingClient(rpcPort: number, prompt: string): Promise<{ kind: string }[]> {
  const client = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${rpcPort}`) });
  try {
    const asked: { kind: string }[] = [];
    const session = await client.createSession({
      onPermissionRequest: (request) => {
        asked.push(request as { kind: string });
        return { kind: "approve-once" };
      },
    });
    await session.sendAndWait({ prompt }, 30_000);
    return asked;
  } finally {
    await client.stop();
  }
}

describe("a served session keeps the project's rules", () => {
  it("over HTTP", async () => {
    const model = await hostileModel();
    const work = project();
    const { base } = await startScriptedServe(model.providerUrl, tempDir(), work, ["--mode", "bypass"]);
    const frames = await promptNewSession(base, "look around");
    expect(frames.at(-1)).toMatchObject({ data: { answer: "Finished." } });
    expectRulesHeld(work, model);
  });

  it("over JSON-RPC, with a client that approves whatever it is asked", async () => {
    const model = await hostileModel();
    const work = project();
    const { rpcPort } = await startServe([
      ...["--rpc-port", "0", "--base-url", model.providerUrl, "--model", "scripted"],
      ...["--home", tempDir(), "--cwd", work],
    ]);
    const asked = await approvingClient(rpcPort, "look around");
    expectRulesHeld(work, model);
    // Only the ordinary write was a question: the rules refused the others without asking.
    expect(asked).toEqual([expect.objectContaining({ kind: "write" })]);
  });
});

// A cluster node is `tern serve` over the queued run host: the session runs on a `tern worker`,
// through the same coding-agent factory, and both protocols reach it.
describe.each(["HTTP", "JSON-RPC"] as const)(
  "a cluster worker's session keeps them too, over %s",
  (protocol) => {
    it(
      "denies the secret and the .tern/** write",
      async () => {
        const model = await hostileModel();
        const work = project();
        const store = await sharedPostgres();
        const mode = protocol === "HTTP" ? ["--mode", "bypass"] : [];
        const common = ["--store", store, "--home", tempDir(), "--cwd", work, ...mode];
        const worker = spawnTern(
          ["worker", ...common, "--base-url", model.providerUrl, "--model", "scripted"],
          {
            env: ternEnv(),
          },
        );
        try {
          const served = await startServe([
            ...["--port", "0", "--rpc-port", "0", "--no-worker", ...common],
            ...["--base-url", model.providerUrl, "--model", "scripted"],
          ]);
          await worker.waitFor(/worker taking runs from/, "stdout");
          if (protocol === "HTTP") {
            // A cluster node streams the run from the POST, as any `tern serve` does.
            const frames = await promptNewSession(served.base, "look around");
            expect(frames.at(-1)?.event).toBe("done");
          } else {
            const asked = await approvingClient(served.rpcPort, "look around");
            expect(asked).toEqual([expect.objectContaining({ kind: "write" })]);
          }
          expectRulesHeld(work, model);
        } finally {
          worker.child.kill("SIGKILL");
          await worker.done;
        }
      },
      CLUSTER_CEILING_MS,
    );
  },
);
