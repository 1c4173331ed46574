// The scripted model's wire encoders, proven against tern's own providers: each script is run
// in-process through the faux provider and served over loopback in each wire format, and the
// provider must parse the stream to the same AssistantMessage the faux run built. Signatures and
// response ids are the wire's own (a Responses item id, an empty Anthropic signature), and a failed
// stream's usage is what its wire sent before failing: those are left out of the comparison.
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage, Context } from "../src/index.js";
import { stream } from "../src/index.js";
import {
  createFaux,
  type FauxReply,
  fauxText,
  fauxThinking,
  fauxToolCall,
  gate,
  type ScriptServer,
  serveScript,
  WIRES,
} from "../src/testing/index.js";

const context: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };

const SCRIPTS: Record<string, FauxReply> = {
  text: { content: "Hello there, scripted world", usage: { input: 12, output: 7 } },
  "thinking then text": {
    content: [fauxThinking("Weigh the options first."), fauxText("The answer is 42.")],
    usage: { input: 30, output: 11, cacheRead: 8 },
  },
  "parallel tool calls after text": {
    content: [
      fauxText("Looking."),
      fauxToolCall("read", { path: "a.txt" }, "call_a"),
      fauxToolCall("grep", { pattern: "x+", paths: ["src", "test"] }, "call_b"),
    ],
    usage: { input: 40, output: 20 },
  },
  "estimated output usage": { content: "No usage scripted for the output.", usage: { input: 5 } },
  "cut by the length limit": { content: "Trunc", stopReason: "length", usage: { input: 3, output: 2 } },
  "HTTP 429 with the provider's error body": {
    error: { kind: "rate_limit", message: "Rate limit reached for requests", status: 429 },
  },
  "HTTP 401": { error: { kind: "auth", message: "Invalid API key", status: 401 } },
  "HTTP 400 context overflow": {
    error: {
      kind: "context_overflow",
      message: "prompt is too long: 210000 tokens > 200000 maximum",
      status: 400,
    },
  },
  "overloaded mid-stream": {
    content: "partial ",
    error: { kind: "overloaded", message: "Overloaded" },
    usage: { input: 4, output: 2 },
  },
  "a dropped connection": { content: "half a rep", cut: true, usage: { input: 4, output: 3 } },
};

/** What a caller reads from a message, without the parts each wire sets on its own. */
function comparable(message: AssistantMessage) {
  const content = message.content.map((part) => {
    const { signature: _signature, ...rest } = part as typeof part & { signature?: string };
    return rest;
  });
  const { cost: _cost, totalTokens: _total, ...tokens } = message.usage;
  return {
    content,
    stopReason: message.stopReason,
    errorKind: message.errorKind,
    // A failed stream reports the usage its wire delivered before the failure, which differs by
    // wire (Anthropic counts output only at the end); a finished one reports the scripted counts.
    ...(message.stopReason !== "error" && { tokens }),
  };
}

async function inProcess(reply: FauxReply) {
  const faux = createFaux({ replies: [reply] });
  return stream(faux.model, context, { retry: { maxRetries: 0 } }).result();
}

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(WIRES)("serveScript over %s", (wire) => {
  for (const [name, reply] of Object.entries(SCRIPTS)) {
    it(`parses ${name} to the in-process faux message`, async () => {
      server = await serveScript([reply], { wire });
      const served = await stream(server.model(), context, {
        apiKey: "sk-scripted",
        retry: { maxRetries: 0 },
      }).result();
      const expected = await inProcess(reply);
      expect(comparable(served)).toEqual(comparable(expected));
    });
  }

  it("records every request body, counts requests, and holds answers until released", async () => {
    server = await serveScript(["first", "second"], { wire });
    const model = server.model();
    server.hold();
    const held = stream(model, context, { apiKey: "sk-scripted" }).result();
    await server.requestsReceived(1);
    expect(server.pending).toBe(2);
    server.release();
    expect((await held).content.map((part) => part.type === "text" && part.text)).toEqual(["first"]);
    await stream(model, context, { apiKey: "sk-scripted" }).result();
    expect(server.requests.map((request) => request.index)).toEqual([0, 1]);
    expect(server.requests[0]!.method).toBe("POST");
    expect(JSON.stringify(server.requests[0]!.body)).toContain('"hi"');
  });

  it("holds a reply mid-stream until released: the first events are out, the rest wait", async () => {
    const { until, release } = gate();
    server = await serveScript([{ content: "abcdefgh", chunkSize: 1, holdAfter: { deltas: 3, until } }], {
      wire,
    });
    const s = stream(server.model(), context, { apiKey: "sk-scripted" });
    let text = "";
    let released = false;
    for await (const event of s) {
      if (event.type !== "text_delta") continue;
      text += event.delta;
      if (!released && text.length > 0) {
        // Whatever arrived before the release is a prefix that never reaches the held events.
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect("abcdefgh".startsWith(text) && text.length < 8).toBe(true);
        released = true;
        release();
      }
    }
    expect(text).toBe("abcdefgh");
  });

  it("answers a request past the end of the script with an error, not a hang", async () => {
    server = await serveScript([], { wire });
    const message = await stream(server.model(), context, {
      apiKey: "sk-scripted",
      retry: { maxRetries: 0 },
    }).result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("no scripted reply left");
  });
});
