// The runnable entry as a real child process (bundled with esbuild): `--rpc-port 0 --port 0`
// serves the official Copilot SDK and HTTP from one engine; a public bind without a token is refused.
import type { ChildProcess } from "node:child_process";
import { CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
import { type ScriptServer, serveScript, textReply } from "@tern/ai/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tempHome } from "../../session/test/support/helpers.js";
import { bundleServer, serverLauncher, spawnServer } from "./support/bundle.js";
import { postMessage } from "./support/sse.js";

let model: ScriptServer;
let home: ReturnType<typeof tempHome>;
let child: ChildProcess | undefined;

beforeAll(async () => {
  model = await serveScript();
  home = tempHome();
  await bundleServer();
});

afterAll(async () => {
  child?.kill();
  await model.close();
  home.cleanup();
});

it("serves the Copilot SDK on --rpc-port and HTTP on --port from one process", async () => {
  model.push(textReply("Hello from the port."), textReply("Hello over HTTP."));
  const args = ["--rpc-port", "0", "--port", "0", "--base-url", model.providerUrl, "--model", "scripted"];
  const started = await spawnServer(
    [...args, "--home", home.home, "--cwd", home.home],
    ["listening on port", "http listening on"],
  );
  child = started.child;
  const port = Number(/listening on port (\d+)/.exec(started.lines[0]!)![1]);
  const base = started.lines[1]!.slice("http listening on ".length);

  const client = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${port}`) });
  const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
  expect((await session.sendAndWait({ prompt: "hi" }, 10_000))?.data.content).toBe("Hello from the port.");
  const id = session.sessionId;
  await client.stop();

  // The same engine over HTTP: the session the SDK made is listed and can run again.
  const listed = (await (await fetch(`${base}/api/sessions`)).json()) as { sessions: { id: string }[] };
  expect(listed.sessions.map((s) => s.id)).toContain(id);
  const frames = await postMessage(base, id, "and you?");
  expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "Hello over HTTP." } });
});

it("is the CLI the official SDK spawns itself over stdio", async () => {
  model.push(textReply("Spawned by the SDK."));
  const client = new CopilotClient({
    connection: RuntimeConnection.forStdio({
      path: await serverLauncher(),
      args: ["--base-url", model.providerUrl, "--model", "scripted", "--home", home.home, "--cwd", home.home],
    }),
  });
  const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
  expect((await session.sendAndWait({ prompt: "hi" }, 10_000))?.data.content).toBe("Spawned by the SDK.");
  // stop() asks the runtime to shut down and waits for the process to exit.
  expect(await client.stop()).toEqual([]);
});

it("refuses to bind a public address without a token", async () => {
  await expect(
    spawnServer(["--port", "0", "--host", "0.0.0.0", "--home", home.home], ["http listening"]),
  ).rejects.toThrow(/requires a token/);
});
