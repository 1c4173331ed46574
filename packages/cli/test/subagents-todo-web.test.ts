// `tern run` with the tools of issue 21: todo_write (shown as a list, kept by the session and shown
// again on resume), task (a sub-agent collapsed to one summary line; its request carries only its
// task; its events land in the session) and web_fetch (the address guard refuses loopback even
// when a domain rule allows the host; the guard is never lifted by the CLI).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { contentText, type ScriptServer, wireMessages } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

const TODOS = [
  { id: "1", content: "Count the files", status: "in_progress" },
  { id: "2", content: "Report back", status: "pending" },
];

/** `tern run` against the scripted model server, with its own TERN_HOME. */
function scriptedEnv(home: string, model: ScriptServer): NodeJS.ProcessEnv {
  return scriptedModelEnv(model, { TERN_HOME: home });
}

function sessionLines(home: string): string[] {
  const root = join(home, "sessions");
  const [dir] = readdirSync(root);
  const [file] = readdirSync(join(root, dir!));
  return readFileSync(join(root, dir!, file!), "utf8")
    .trim()
    .split("\n");
}

describe("tern run: todo_write, task, web_fetch", () => {
  it("shows the todo list, collapses a sub-agent, refuses a loopback fetch, and keeps it all in the session", async () => {
    const home = tempDir();
    const work = tempDir();
    const server = await startScriptedModel([
      toolReply([{ name: "todo_write", args: { todos: TODOS } }]),
      toolReply([{ name: "task", args: { description: "Count files", prompt: "Count the files here." } }]),
      // The sub-agent: one tool call, then its answer.
      toolReply([{ name: "ls", args: { path: "." } }]),
      textReply("There are no files."),
      // Back in the parent.
      toolReply([{ name: "web_fetch", args: { url: "http://127.0.0.1:9/secret" } }]),
      textReply("All done."),
      // The completion checklist asks once after several tool calls.
      textReply("All done."),
    ]);
    const env = scriptedEnv(home, server);
    const result = await runTern(["run", "--allow-tool", "web_fetch(domain:127.0.0.1)", "Do the work"], {
      env,
      cwd: work,
    });
    expect(result.stderr).not.toMatch(/tern: /);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("All done.\n");
    // The list, drawn whole.
    expect(result.stderr).toContain("todo 0/2");
    expect(result.stderr).toMatch(/▶ Count the files/);
    expect(result.stderr).toMatch(/☐ Report back/);
    // The sub-agent: its ls is not a line of its own, one summary line instead.
    expect(result.stderr).toMatch(/▸ task \[general\] Count files/);
    expect(result.stderr).not.toMatch(/▸ ls/);
    expect(result.stderr).toMatch(/↳ general done · 2 turns/);
    // web_fetch: allowed by the rule, refused by the guard before any connection.
    expect(result.stderr).toMatch(/refused to connect to 127\.0\.0\.1/);

    // The sub-agent's first request: its own prompt and task, none of the conversation.
    const sub = wireMessages(server.requests[2]!.body);
    expect(contentText(sub[0])).toMatch(/You are a sub-agent/);
    expect(sub.slice(1)).toEqual([{ role: "user", content: "Count the files here." }]);
    expect(JSON.stringify(sub)).not.toContain("Do the work");

    // The session keeps the sub-agent's events, nested under the task call.
    const lines = sessionLines(home).map((line) => JSON.parse(line));
    const json = JSON.stringify(lines);
    expect(json).toContain('"subagent_start"');
    expect(json).toContain('"subagent_end"');
    const nestedLs = lines.find((l) => JSON.stringify(l).includes('"toolName":"ls"'));
    expect(JSON.stringify(nestedLs)).toContain("parentToolCallId");

    // Resuming shows the list the session left off with.
    const id = lines[0].id ?? lines[0].sessionId;
    server.push(textReply("resumed"));
    const again = await runTern(["run", "--session", String(id), "Go on"], { env, cwd: work });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/▶ Count the files/);
  });

  it("searches through the configured SearXNG endpoint when a rule allows web_search", async () => {
    const home = tempDir();
    const work = tempDir();
    const queries: string[] = [];
    const searx = createServer((req, res) => {
      queries.push(req.url ?? "");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          results: [{ title: "Arctic tern", url: "https://birds.test/tern", content: "Long flights" }],
        }),
      );
    });
    await new Promise<void>((resolve) => searx.listen(0, "127.0.0.1", resolve));
    try {
      const port = (searx.address() as AddressInfo).port;
      writeFileSync(
        join(home, "config.json"),
        JSON.stringify({ webSearch: { kind: "searxng", url: `http://127.0.0.1:${port}` } }),
      );
      const server = await startScriptedModel([
        toolReply([{ name: "web_search", args: { query: "arctic tern" } }]),
        textReply("Found it."),
      ]);
      const env = scriptedEnv(home, server);
      const result = await runTern(["run", "--allow-tool", "web_search", "Search"], { env, cwd: work });
      expect(result.stderr).not.toMatch(/tern: /);
      expect(result.code).toBe(0);
      expect(queries).toEqual(["/search?q=arctic+tern&format=json"]);
      const second = JSON.stringify(wireMessages(server.requests[1]!.body));
      expect(second).toContain("1. Arctic tern\\n   https://birds.test/tern\\n   Long flights");
    } finally {
      await new Promise((resolve) => searx.close(resolve));
    }
  });

  it("has no web_search without a configured backend; loads agent profiles and warns about a bad one", async () => {
    const home = tempDir();
    const work = tempDir();
    mkdirSync(join(work, ".tern", "agents"), { recursive: true });
    writeFileSync(
      join(work, ".tern", "agents", "reviewer.md"),
      "---\ndescription: Reviews diffs\ntools: [read, grep]\n---\nYou review code.\n",
    );
    writeFileSync(join(work, ".tern", "agents", "broken.md"), "---\ndescription: [unclosed\n---\nbody\n");
    const server = await startScriptedModel([textReply("ok")]);
    const env = scriptedEnv(home, server);
    const result = await runTern(["run", "hi"], { env, cwd: work });
    expect(result.code).toBe(0);
    const tools = (server.requests[0]!.body as { tools?: { function: { name: string } }[] }).tools ?? [];
    const names = tools.map((tool) => tool.function.name);
    expect(names).toEqual(expect.arrayContaining(["task", "todo_write", "web_fetch"]));
    expect(names).not.toContain("web_search");
    const task = tools.find((tool) => tool.function.name === "task") as unknown as {
      function: { description: string };
    };
    expect(task.function.description).toContain("- reviewer: Reviews diffs");
    expect(result.stderr).toMatch(
      /agent profile .*broken\.md: the front matter is not valid YAML.*; skipped/,
    );
  });
});
