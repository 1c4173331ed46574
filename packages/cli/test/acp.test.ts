// `tern acp` end to end: the built bundle as a child process, the official ACP SDK's client app on
// its stdio, and a scripted OpenAI-compatible model on loopback. A coding task streams its text,
// tool calls (with a diff for the edit) and answer; permission questions are answered in the
// client (once, always, rejected); a cancel mid-command ends the turn "cancelled" and the agent
// goes on; a prompt during a turn steers it; a saved session loads with its history replayed; a
// client that offers fs and terminal gets the reads, writes and commands; the client's MCP servers
// (the official memory server) give the agent their tools; bad frames and unknown methods get
// JSON-RPC errors; a cwd outside the allowed roots is refused.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionNotification } from "@agentclientprotocol/sdk";
import { contentText, wireMessages } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { memoryBin } from "../../mcp/test/support/servers.js";
import { startAcp } from "./support/acp-client.js";
import { TERN_JS } from "./support/build.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { tempDir } from "./support/tern.js";

/** A ceiling for hangs on a loaded machine, never a measure. */
const CEILING_MS = 300_000;

type Update = SessionNotification["update"];

function workspace(): string {
  const work = tempDir();
  writeFileSync(join(work, "greeting.txt"), "hello one\n");
  return work;
}

const of = <K extends Update["sessionUpdate"]>(updates: SessionNotification[], kind: K) =>
  updates
    .map((n) => n.update)
    .filter((u): u is Extract<Update, { sessionUpdate: K }> => u.sessionUpdate === kind);

const text = (updates: SessionNotification[], kind: "agent_message_chunk" | "user_message_chunk") =>
  of(updates, kind)
    .map((u) => (u.content.type === "text" ? u.content.text : ""))
    .join("");

describe("tern acp", () => {
  it(
    "runs a coding task: a read, an edit with its diff, a bash call, the answer; the file changed",
    async () => {
      const work = workspace();
      const model = await startScriptedModel([
        toolReply([{ id: "r1", name: "read", args: { path: "greeting.txt" } }]),
        toolReply([
          {
            id: "e1",
            name: "edit",
            args: { path: "greeting.txt", edits: [{ oldText: "one", newText: "two" }] },
          },
        ]),
        toolReply([{ id: "b1", name: "bash", args: { command: "cat greeting.txt" } }]),
        textReply("Changed one to two."),
        textReply("Changed one to two."),
      ]);
      const home = tempDir();
      const peer = await startAcp({
        args: ["--mode", "bypass", "--sandbox", "off"],
        env: scriptedModelEnv(model, { TERN_HOME: home }),
        cwd: work,
      });
      const { sessionId } = await peer.newSession(work);
      const reply = await peer.prompt(sessionId, "say two instead of one");
      expect(reply.stopReason).toBe("end_turn");
      expect(readFileSync(join(work, "greeting.txt"), "utf8")).toBe("hello two\n");

      const calls = of(peer.updates, "tool_call");
      expect(calls.map((c) => [c.toolCallId, c.kind, c.status])).toEqual([
        ["r1", "read", "pending"],
        ["e1", "edit", "pending"],
        ["b1", "execute", "pending"],
      ]);
      expect(calls[0]!.locations).toEqual([{ path: join(work, "greeting.txt") }]);
      expect(calls[2]!.rawInput).toEqual({ command: "cat greeting.txt" });
      const statuses = (id: string) =>
        of(peer.updates, "tool_call_update")
          .filter((u) => u.toolCallId === id)
          .map((u) => u.status);
      for (const id of ["r1", "e1", "b1"]) expect(statuses(id)).toEqual(["in_progress", "completed"]);
      const edit = of(peer.updates, "tool_call_update").find(
        (u) => u.toolCallId === "e1" && u.status === "completed",
      )!;
      expect(edit.content).toContainEqual({
        type: "diff",
        path: join(work, "greeting.txt"),
        oldText: "one",
        newText: "two",
      });
      const bash = of(peer.updates, "tool_call_update").find(
        (u) => u.toolCallId === "b1" && u.status === "completed",
      )!;
      expect(JSON.stringify(bash.content)).toContain("hello two");
      expect(text(peer.updates, "agent_message_chunk")).toContain("Changed one to two.");
      expect(peer.updates.every((n) => n.sessionId === sessionId)).toBe(true);

      // The saved session loads in another tern acp once this one let go of it (stdin closed).
      expect(await peer.close()).toBe(0);
      const again = await startAcp({
        args: ["--mode", "bypass"],
        env: scriptedModelEnv(model, { TERN_HOME: home }),
        cwd: work,
      });
      await again.agent.request("session/load", { sessionId, cwd: work, mcpServers: [] });
      expect(text(again.updates, "user_message_chunk")).toContain("say two instead of one");
      expect(of(again.updates, "tool_call").map((c) => c.toolCallId)).toEqual(["r1", "e1", "b1"]);
      expect(
        of(again.updates, "tool_call_update").find((u) => u.toolCallId === "e1")!.content,
      ).toContainEqual(expect.objectContaining({ type: "diff", newText: "two" }));
      expect(text(again.updates, "agent_message_chunk")).toContain("Changed one to two.");
    },
    CEILING_MS,
  );

  it(
    "asks the client before a command: allowed it runs, rejected it does not",
    async () => {
      const work = workspace();
      const model = await startScriptedModel([
        toolReply([{ id: "b1", name: "bash", args: { command: "touch allowed.txt" } }]),
        textReply("Ran it."),
        toolReply([{ id: "b2", name: "bash", args: { command: "touch rejected.txt" } }]),
        textReply("It was rejected."),
        textReply("It was rejected."),
      ]);
      const peer = await startAcp({
        args: ["--sandbox", "off"],
        env: scriptedModelEnv(model),
        cwd: work,
        answer: (request) => ({
          outcome: {
            outcome: "selected",
            optionId: request.toolCall.toolCallId === "b1" ? "allow_once" : "reject_once",
          },
        }),
      });
      const { sessionId } = await peer.newSession(work);
      const prompt = (text: string) => peer.prompt(sessionId, text);

      expect((await prompt("write allowed.txt")).stopReason).toBe("end_turn");
      expect(existsSync(join(work, "allowed.txt"))).toBe(true);
      expect((await prompt("write rejected.txt")).stopReason).toBe("end_turn");
      expect(existsSync(join(work, "rejected.txt"))).toBe(false);

      expect(peer.permissions.map((p) => [p.toolCall.toolCallId, p.toolCall.kind])).toEqual([
        ["b1", "execute"],
        ["b2", "execute"],
      ]);
      expect(peer.permissions[0]!.options.map((o) => o.kind)).toEqual([
        "allow_once",
        "allow_always",
        "reject_once",
      ]);
      const ends = of(peer.updates, "tool_call_update").filter(
        (u) => u.status === "completed" || u.status === "failed",
      );
      expect(ends.map((u) => [u.toolCallId, u.status])).toEqual([
        ["b1", "completed"],
        ["b2", "failed"],
      ]);
      // The model was told why.
      const told = wireMessages(model.requests.at(-1)!.body).find((m) => m.tool_call_id === "b2");
      expect(contentText(told)).toMatch(/rejected/);
    },
    CEILING_MS,
  );

  it(
    "cancels a turn mid-command: the prompt answers cancelled, and the next prompt works",
    async () => {
      const work = workspace();
      const model = await startScriptedModel([
        toolReply([{ id: "slow", name: "bash", args: { command: "sleep 600" } }]),
        textReply("Back again."),
        textReply("Back again."),
      ]);
      const peer = await startAcp({
        args: ["--mode", "bypass", "--sandbox", "off"],
        env: scriptedModelEnv(model),
        cwd: work,
      });
      const { sessionId } = await peer.newSession(work);
      const turn = peer.prompt(sessionId, "wait");
      await peer.waitForUpdate((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress");
      await peer.agent.notify("session/cancel", { sessionId });
      expect((await turn).stopReason).toBe("cancelled");

      const next = await peer.prompt(sessionId, "again");
      expect(next.stopReason).toBe("end_turn");
      expect(text(peer.updates, "agent_message_chunk")).toContain("Back again.");
      expect(peer.child.exitCode).toBeNull();
    },
    CEILING_MS,
  );

  it(
    "reads through the client when it offers fs.readTextFile, inside the workspace only",
    async () => {
      const work = workspace();
      const model = await startScriptedModel([
        toolReply([
          { id: "r1", name: "read", args: { path: "greeting.txt" } },
          { id: "r2", name: "read", args: { path: "/etc/passwd" } },
        ]),
        textReply("Read it."),
        textReply("Read it."),
      ]);
      const peer = await startAcp({
        args: ["--mode", "bypass"],
        env: scriptedModelEnv(model),
        cwd: work,
        capabilities: { fs: { readTextFile: true, writeTextFile: false } },
        buffer: () => "unsaved text in the editor\n",
      });
      const { sessionId } = await peer.newSession(work);
      await peer.prompt(sessionId, "read");

      expect(peer.reads.map((r) => r.path)).toEqual([join(work, "greeting.txt")]);
      const results = wireMessages(model.requests.at(-1)!.body);
      expect(contentText(results.find((m) => m.tool_call_id === "r1"))).toContain(
        "unsaved text in the editor",
      );
      expect(contentText(results.find((m) => m.tool_call_id === "r2"))).toMatch(/outside/i);
    },
    CEILING_MS,
  );

  it(
    "writes and runs commands through the client when it offers fs.writeTextFile and terminal",
    async () => {
      const work = workspace();
      const model = await startScriptedModel([
        toolReply([{ id: "w1", name: "write", args: { path: "new.txt", content: "from tern\n" } }]),
        toolReply([{ id: "b1", name: "bash", args: { command: "echo in the editor; pwd" } }]),
        toolReply([{ id: "w2", name: "write", args: { path: "../escape.txt", content: "no" } }]),
        textReply("Done."),
        textReply("Done."),
      ]);
      const peer = await startAcp({
        args: ["--mode", "bypass"],
        env: scriptedModelEnv(model),
        cwd: work,
        capabilities: { fs: { readTextFile: false, writeTextFile: true }, terminal: true },
      });
      const { sessionId } = await peer.newSession(work);
      const reply = await peer.prompt(sessionId, "go");
      expect(reply.stopReason).toBe("end_turn");

      // The editor got the write (the file is its buffer now, not tern's disk write)...
      expect(peer.writes).toEqual([{ sessionId, path: join(work, "new.txt"), content: "from tern\n" }]);
      expect(existsSync(join(work, "new.txt"))).toBe(false);
      // ...and ran the command in its terminal, in the workspace.
      expect(peer.commands).toMatchObject([
        { sessionId, command: "/bin/bash", args: ["-c", "echo in the editor; pwd"], cwd: work },
      ]);
      const results = wireMessages(model.requests.at(-1)!.body);
      expect(contentText(results.find((m) => m.tool_call_id === "b1"))).toContain(`in the editor\n${work}`);
      // A path outside the workspace never reaches the editor.
      expect(contentText(results.find((m) => m.tool_call_id === "w2"))).toMatch(/outside/i);
      expect(peer.writes).toHaveLength(1);
    },
    CEILING_MS,
  );

  it(
    "answers allow always with the narrowest rule: the same program is not asked again, another is",
    async () => {
      const work = workspace();
      const model = await startScriptedModel([
        toolReply([{ id: "b1", name: "bash", args: { command: "git init -q a" } }]),
        toolReply([{ id: "b2", name: "bash", args: { command: "git init -q b" } }]),
        toolReply([{ id: "b3", name: "bash", args: { command: "mkdir c" } }]),
        textReply("Made them."),
        textReply("Made them."),
      ]);
      const peer = await startAcp({
        args: ["--sandbox", "off"],
        env: scriptedModelEnv(model),
        cwd: work,
        answer: () => ({ outcome: { outcome: "selected", optionId: "allow_always" } }),
      });
      const { sessionId } = await peer.newSession(work);
      await peer.prompt(sessionId, "make them");
      for (const made of ["a/.git", "b/.git", "c"]) expect(existsSync(join(work, made))).toBe(true);
      expect(peer.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["b1", "b3"]);
      expect(peer.permissions[0]!.options.find((o) => o.kind === "allow_always")!.name).toBe(
        "Always allow bash(git init:*)",
      );
    },
    CEILING_MS,
  );

  it(
    "takes a prompt sent during a turn as steering, and answers both when the turn ends",
    async () => {
      const work = workspace();
      const model = await startScriptedModel([
        toolReply([
          { id: "wait", name: "bash", args: { command: "while [ ! -f go ]; do sleep 0.05; done" } },
        ]),
        textReply("Bananas, as you asked."),
        textReply("Bananas, as you asked."),
      ]);
      const peer = await startAcp({
        args: ["--mode", "bypass", "--sandbox", "off"],
        env: scriptedModelEnv(model),
        cwd: work,
      });
      const { sessionId } = await peer.newSession(work);
      const prompt = (text: string) => peer.prompt(sessionId, text);
      const first = prompt("wait for go");
      await peer.waitForUpdate((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress");
      const second = prompt("also mention bananas");
      // Frames are read in order: once a later request is answered, the steering is queued.
      await expect(peer.agent.request("tern-test/barrier", {})).rejects.toThrow(/not found/i);
      writeFileSync(join(work, "go"), "");
      expect((await first).stopReason).toBe("end_turn");
      expect((await second).stopReason).toBe("end_turn");
      const sent = wireMessages(model.requests[1]!.body)
        .filter((m) => m.role === "user")
        .map(contentText);
      expect(sent.join("\n")).toContain("also mention bananas");
      expect(model.requests).toHaveLength(2);
    },
    CEILING_MS,
  );

  it(
    "starts the MCP servers the client passes and gives the agent their tools",
    async () => {
      const work = workspace();
      const memory = join(work, "memory.jsonl");
      const model = await startScriptedModel([
        toolReply([
          {
            id: "m1",
            name: "mcp__memory__create_entities",
            args: { entities: [{ name: "tern", entityType: "project", observations: ["speaks ACP"] }] },
          },
        ]),
        textReply("Remembered."),
        textReply("Remembered."),
      ]);
      const peer = await startAcp({
        args: ["--mode", "bypass", "--tools", "none"],
        env: scriptedModelEnv(model),
        cwd: work,
      });
      const { sessionId } = await peer.agent.request("session/new", {
        cwd: work,
        mcpServers: [
          {
            name: "memory",
            command: process.execPath,
            args: [memoryBin],
            env: [{ name: "MEMORY_FILE_PATH", value: memory }],
          },
        ],
      });
      expect((await peer.prompt(sessionId, "remember tern")).stopReason).toBe("end_turn");
      expect(readFileSync(memory, "utf8")).toContain("speaks ACP");
      expect(of(peer.updates, "tool_call")).toMatchObject([{ toolCallId: "m1", kind: "other" }]);
    },
    CEILING_MS,
  );

  it(
    "refuses a cwd outside the allowed roots, and takes one inside an --allow-root",
    async () => {
      const work = workspace();
      const other = tempDir();
      const model = await startScriptedModel([]);
      const peer = await startAcp({ args: ["--allow-root", other], env: scriptedModelEnv(model), cwd: work });
      await expect(peer.newSession(tempDir())).rejects.toThrow(
        /outside the directories tern acp may work in/,
      );
      await expect(peer.newSession("relative/dir")).rejects.toThrow(/absolute/);
      const { sessionId } = await peer.newSession(other);
      expect(sessionId).toMatch(/\S/);
    },
    CEILING_MS,
  );

  it(
    "answers malformed frames and unknown methods with JSON-RPC errors and keeps serving",
    async () => {
      const work = workspace();
      const model = await startScriptedModel([]);
      const child = spawn(process.execPath, [TERN_JS, "acp"], { env: scriptedModelEnv(model), cwd: work });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
      });
      const replies = async (count: number) => {
        for (let i = 0; i < CEILING_MS / 50 && out.split("\n").filter(Boolean).length < count; i++)
          await new Promise((resolve) => setTimeout(resolve, 50));
        return out
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { id?: unknown; error?: { code: number }; result?: unknown });
      };
      const send = (frame: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`);
      try {
        child.stdin.write("this is not json\n");
        send({ id: 0, method: "session/new", params: { cwd: work, mcpServers: [] } });
        send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
        // Requests are served once initialize has been answered.
        await replies(3);
        send({ id: 2, method: "no/such_method", params: {} });
        send({ id: 3, method: "session/prompt", params: { prompt: 7 } });
        send({ id: 4, method: "session/prompt", params: { sessionId: "nope", prompt: [] } });
        send({ id: 5, method: "session/new", params: { cwd: work, mcpServers: [] } });
        const got = await replies(7);
        const reply = (id: unknown) => got.find((r) => r.id === id);
        expect(reply(null)?.error?.code).toBe(-32700);
        // Before initialize, nothing else is served.
        expect(reply(0)?.error?.code).toBe(-32600);
        expect(reply(1)?.result).toMatchObject({
          protocolVersion: 1,
          agentCapabilities: { loadSession: true },
        });
        expect(reply(2)?.error?.code).toBe(-32601);
        expect(reply(3)?.error?.code).toBe(-32602);
        expect(reply(4)?.error?.code).toBe(-32002);
        expect(reply(5)?.result).toMatchObject({ sessionId: expect.any(String) });
        // A prompt with nothing tern can read (audio only) is refused; the session takes the next.
        const { sessionId } = reply(5)!.result as { sessionId: string };
        const audio = { type: "audio", data: "AAAA", mimeType: "audio/wav" };
        send({ id: 6, method: "session/prompt", params: { sessionId, prompt: [audio] } });
        expect((await replies(8)).find((r) => r.id === 6)?.error).toMatchObject({
          code: -32602,
          message: expect.stringMatching(/no text, file or image/),
        });
        // Stdout held only protocol frames: every line parsed above.
      } finally {
        child.kill();
      }
    },
    CEILING_MS,
  );
});
