import { readFileSync } from "node:fs";
import { createFaux } from "@tern/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keyLeaks } from "../../ai/test/support/key-leaks.js";
import { FileSessionStore } from "../src/file-store.js";
import { createSessionAgent } from "../src/persist-agent.js";
import { createRedactor } from "../src/redact.js";
import { assistant, call, result, tempHome, user } from "./support/helpers.js";

const OPENAI = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12";
const ANTHROPIC = "sk-ant-api03-ZyXwVuTsRqPoNmLk-0987654321";
const CUSTOM = "plain-looking-value-42"; // no known shape: caught because it is in a *_TOKEN variable
const PASSED = "hunter2-but-longer"; // given to the store as an extra secret
const BEARER = "eyJhbGciOiJIUzI1NiJ9.payload.sig123";
const FIELD = "qwerty-field-key"; // only recognisable by the field it sits in
const SHAPED = "sk-or-v1-abcdefghij0123456789"; // in no variable: caught by its shape

let home: ReturnType<typeof tempHome>;
const saved: Record<string, string | undefined> = {};

beforeEach(() => {
  home = tempHome();
  for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MY_SERVICE_TOKEN"])
    saved[name] = process.env[name];
  process.env.OPENAI_API_KEY = OPENAI;
  process.env.ANTHROPIC_API_KEY = ANTHROPIC;
  process.env.MY_SERVICE_TOKEN = CUSTOM;
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  home.cleanup();
});

describe("secrets", () => {
  it("never writes keys or authorization headers, wherever they appear; the file stays valid", async () => {
    const store = new FileSessionStore({ home: home.home, secrets: [PASSED] });
    const session = await store.create({ cwd: "/p" });
    session.appendMessage(user(`my keys: ${OPENAI} and ${ANTHROPIC}, token ${CUSTOM}, pw ${PASSED}`));
    session.appendMessage(
      assistant("calling", [
        call("c1", "http", { url: "https://x", headers: { Authorization: `Bearer ${BEARER}` } }),
      ]),
    );
    session.appendMessage(
      result("c1", `curl -H "x-api-key: ${FIELD}" -H "Authorization: Bearer ${BEARER}"`, "http"),
    );
    session.appendCustom("provider.config", {
      apiKey: FIELD,
      "x-api-key": FIELD,
      nested: [{ api_key: FIELD }],
    });
    session.appendEvent({
      type: "model_call_start",
      model: { id: "m", headers: { authorization: `Basic ${BEARER}` } },
      note: `key ${OPENAI}`,
    });
    session.appendMessage(
      result("c2", `$ env\nOPENAI_API_KEY=${FIELD}\nauthorization: ${FIELD}\n${SHAPED}`, "bash"),
    );
    session.setName(`named with ${ANTHROPIC}`);
    await session.close();

    const text = readFileSync(session.path!, "utf8");
    for (const secret of [OPENAI, ANTHROPIC, CUSTOM, PASSED, BEARER, FIELD, SHAPED])
      expect(text).not.toContain(secret);
    expect(text.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(12);
    // Still a valid session, with the redacted text in place.
    const loaded = await store.load(session.id);
    const first = loaded.entries()[0]!;
    expect(first.type === "message" && first.message.content).toBe(
      "my keys: [REDACTED] and [REDACTED], token [REDACTED], pw [REDACTED]",
    );
    expect(loaded.entries()[3]).toMatchObject({
      data: { apiKey: "[REDACTED]", "x-api-key": "[REDACTED]", nested: [{ api_key: "[REDACTED]" }] },
    });
    expect(loaded.name).toBe("named with [REDACTED]");
    const shell = loaded.entries()[4]!;
    expect(shell.type === "message" && shell.message.content).toEqual([
      { type: "text", text: "$ env\nOPENAI_API_KEY=[REDACTED]\nauthorization: [REDACTED]\n[REDACTED]" },
    ]);
  });

  it("leaves look-alike prose alone", () => {
    const redact = createRedactor([], {});
    const prose = JSON.stringify({
      text: "Use Basic authentication or a Bearer token; run sk-learn; the task-abcdefghijklmnopqrstuvwxyz id",
      tokens: 1234,
      apiKeyName: "OPENAI_API_KEY",
    });
    expect(redact(prose)).toBe(prose);
  });

  it("redacts JSON-escaped spellings of a literal secret", () => {
    const secret = 'we"ird\\secret';
    const redact = createRedactor([secret], {});
    const line = JSON.stringify({ text: `value ${secret} end` });
    expect(redact(line)).toBe(JSON.stringify({ text: "value [REDACTED] end" }));
  });

  it("redacts secrets registered after the session opened, in plain and percent-encoded spelling", async () => {
    const late = "late/key+value=42"; // no known shape, in no variable: only addSecrets can catch it
    const store = new FileSessionStore({ home: home.home });
    const session = await store.create({ cwd: "/p" });
    session.addSecrets([late]);
    session.appendMessage(user(`error: bad key ${late} at https://x/?key=${encodeURIComponent(late)}`));
    await session.close();
    const text = readFileSync(session.path!, "utf8");
    expect(text).not.toContain(late);
    expect(text).not.toContain(encodeURIComponent(late));
    expect(text).toContain("error: bad key [REDACTED] at https://x/?key=[REDACTED]");
  });
});

describe("a session agent's answers", () => {
  it("carry no registered secret, in the deltas (a key cut across them), the events or the file", async () => {
    const late = "late-registered-Key-9f3Qx7"; // in no variable, no known shape
    const faux = createFaux({ replies: [`here: ${late} and ${Buffer.from(late).toString("base64url")}`] });
    const store = new FileSessionStore({ home: home.home });
    const session = await store.create({ cwd: "/p" });
    session.addSecrets([late]);
    const { agent } = createSessionAgent(session, { model: faux.model });
    const seen: unknown[] = [];
    agent.subscribe((event) => {
      seen.push(event.type === "message_update" ? event.assistantEvent.type : event);
      if (event.type === "message_update" && event.assistantEvent.type === "text_delta")
        seen.push(event.assistantEvent.delta);
    });
    const result = await agent.prompt("go");
    await session.close();
    const deltas = seen.filter((item) => typeof item === "string" && !item.includes("_")).join("");
    expect(deltas).toMatch(/^here: \[REDACTED\] and \[REDACTED\]/);
    for (const text of [
      deltas,
      JSON.stringify(seen),
      JSON.stringify(result),
      readFileSync(session.path!, "utf8"),
    ])
      expect(keyLeaks(text, late)).toEqual([]);
  });
});
