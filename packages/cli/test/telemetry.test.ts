// OpenTelemetry from the real `tern run` bundle: the standard OTEL_EXPORTER_OTLP_* variables point
// it at a loopback OTLP/HTTP receiver started here, which checks the span tree, the GenAI
// attributes, the headers and the resource it receives; JSON and protobuf; content only when asked;
// spans flushed on Ctrl-C; an unusable configuration is a warning, not a failed run. Each run is a
// real process: tracing registers OpenTelemetry's process-wide provider (runtime/otel-sdk.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ScriptServer, serveScript } from "@tern/ai/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "./support/otlp-receiver.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv } from "./support/scripted-model.js";
import { JSON_TYPE, sseReader, startServe } from "./support/serve.js";
import { ensureBuilt, runTernProcess, spawnTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

let model: ScriptServer | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await model?.close();
  await receiver?.close();
  model = receiver = undefined;
});

const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;

function envFor(models: ScriptServer, otel: NodeJS.ProcessEnv) {
  return scriptedModelEnv(models, {
    ...otel,
  });
}

function parallelReads() {
  return [
    toolReply([
      { name: "read", args: { path: "a.txt" }, id: "call_a" },
      { name: "read", args: { path: "b.txt" }, id: "call_b" },
    ]),
    textReply("Both read: secret-answer."),
  ];
}

describe("tern run with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("exports the run's span tree as OTLP/HTTP JSON with the configured headers and service name", async () => {
    model = await serveScript(parallelReads());
    receiver = await startOtlpReceiver();
    const work = tempDir();
    const env = envFor(model, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=key%20one,x-team=blue",
      OTEL_SERVICE_NAME: "tern-under-test",
    });
    writeFileSync(`${work}/a.txt`, "secret-file-a\n");
    writeFileSync(`${work}/b.txt`, "secret-file-b\n");
    const result = await runTernProcess(["run", "read a.txt and b.txt: secret-prompt"], { env, cwd: work });
    expect(result.stderr).not.toMatch(/tern: /);
    expect(result.code).toBe(0);

    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) {
      expect(request.path).toBe("/v1/traces");
      expect(request.headers["content-type"]).toMatch(/application\/json/);
      expect(request.headers["x-api-key"]).toBe("key one");
      expect(request.headers["x-team"]).toBe("blue");
    }
    const spans = receiver.spans();
    const roots = spans.filter((span) => span.parentSpanId === undefined);
    expect(roots.map((span) => span.name)).toEqual(["invoke_agent tern"]);
    const root = roots[0]!;
    expect(root.resource).toMatchObject({
      "service.name": "tern-under-test",
      "telemetry.sdk.language": "nodejs",
    });
    expect(root.kind).toBe(SPAN_KIND_INTERNAL);
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "llamacpp",
      "gen_ai.request.model": "test-model",
      "gen_ai.conversation.id": expect.stringMatching(/^[0-9a-f-]{36}$/),
      "tern.stop_reason": "stop",
      "tern.iterations": 2,
    });
    const children = spans.filter((span) => span.parentSpanId === root.spanId);
    expect(children.map((span) => span.name).sort()).toEqual([
      "chat test-model",
      "chat test-model",
      "execute_tool read",
      "execute_tool read",
    ]);
    expect(spans).toHaveLength(5);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const chats = children.filter((span) => span.name.startsWith("chat"));
    for (const chat of chats) {
      expect(chat.kind).toBe(SPAN_KIND_CLIENT);
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "llamacpp",
        "gen_ai.request.model": "test-model",
        "tern.model_call.purpose": "turn",
        "gen_ai.conversation.id": root.attributes["gen_ai.conversation.id"],
      });
    }
    expect(chats.map((chat) => chat.attributes["gen_ai.response.finish_reasons"]).sort()).toEqual([
      ["stop"],
      ["tool_call"],
    ]);
    expect(chats.map((chat) => chat.attributes["gen_ai.usage.output_tokens"])).toContain(20);
    const tools = children.filter((span) => span.name.startsWith("execute_tool"));
    expect(tools.map((tool) => tool.attributes["gen_ai.tool.call.id"]).sort()).toEqual(["call_a", "call_b"]);
    for (const tool of tools)
      expect(tool.attributes).toMatchObject({ "gen_ai.tool.name": "read", "tern.turn": 1 });
    // Content is off by default: no prompt, file, argument or answer text left the process.
    const everything = Buffer.concat(receiver.requests.map((request) => request.body)).toString("utf8");
    expect(everything).not.toMatch(/secret/);
    expect(everything).not.toContain("a.txt");
  });

  it("exports protobuf by default to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, with content when opted in", async () => {
    model = await serveScript([textReply("secret-answer")]);
    receiver = await startOtlpReceiver();
    const env = envFor(model, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/custom/traces`,
      TERN_OTEL_CAPTURE_CONTENT: "true",
    });
    const result = await runTernProcess(["run", "say secret-prompt"], { env, cwd: tempDir() });
    expect(result.code).toBe(0);
    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(receiver.requests[0]!.path).toBe("/custom/traces");
    expect(receiver.requests[0]!.headers["content-type"]).toBe("application/x-protobuf");
    // Protobuf carries strings verbatim: the span names and the opted-in content are in the bytes.
    const bytes = Buffer.concat(receiver.requests.map((request) => request.body)).toString("latin1");
    expect(bytes).toContain("invoke_agent tern");
    expect(bytes).toContain("chat test-model");
    expect(bytes).toContain("gen_ai.input.messages");
    expect(bytes).toContain("secret-prompt");
    expect(bytes).toContain("secret-answer");
  });

  it("flushes the spans when Ctrl-C interrupts the run, the run span marked aborted", async () => {
    const command = "sleep 9.541 && echo finished";
    model = await serveScript([toolReply([{ name: "bash", args: { command } }]), textReply("never")]);
    receiver = await startOtlpReceiver();
    const env = envFor(model, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    });
    const tern = spawnTern(["run", "--allow-tool", "bash(sleep:*)", "wait"], { env, cwd: tempDir() });
    await tern.waitFor(/▸ bash \$ sleep 9\.541/);
    tern.child.kill("SIGINT");
    const result = await tern.done;
    expect(result.code).toBe(130);
    const spans = receiver.spans();
    const root = spans.find((span) => span.parentSpanId === undefined)!;
    expect(root.attributes).toMatchObject({ "tern.stop_reason": "aborted", "error.type": "aborted" });
    expect(root.status.code).toBe(STATUS_ERROR);
    const tool = spans.find((span) => span.name === "execute_tool bash")!;
    expect(tool.parentSpanId).toBe(root.spanId);
    expect(tool.status.code).toBe(STATUS_ERROR);
  });

  it("flushes the spans of a failed run, with the provider's echo of the API key redacted", async () => {
    const key = "tern-test-key-Otel42xQ9";
    model = await serveScript([
      {
        kind: "json",
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${key}.`, type: "invalid_request_error" } },
      },
    ]);
    receiver = await startOtlpReceiver();
    const env = envFor(model, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    });
    writeFileSync(join(env.TERN_HOME!, "config.json"), JSON.stringify({ retry: { maxRetries: 0 } }));
    const result = await runTernProcess(["run", "--api-key", key, "hi"], { env, cwd: tempDir() });
    expect(result.code).toBe(1);
    const spans = receiver.spans();
    const root = spans.find((span) => span.parentSpanId === undefined)!;
    expect(root.attributes).toMatchObject({ "tern.stop_reason": "error", "error.type": "error" });
    const chat = spans.find((span) => span.name === "chat test-model")!;
    expect(chat.attributes["error.type"]).toBe("auth");
    expect(chat.status).toMatchObject({
      code: STATUS_ERROR,
      message: expect.stringContaining("Incorrect API key"),
    });
    expect(Buffer.concat(receiver.requests.map((request) => request.body)).toString("utf8")).not.toContain(
      key,
    );
  });

  it("warns and runs untraced when the protocol is one tern does not export (grpc)", async () => {
    model = await serveScript([textReply("ok")]);
    receiver = await startOtlpReceiver();
    const env = envFor(model, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    });
    const result = await runTernProcess(["run", "hi"], { env, cwd: tempDir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("ok\n");
    expect(result.stderr).toMatch(/tern: tracing is off: OTLP protocol "grpc" is not supported/);
    expect(receiver.requests).toEqual([]);
  });

  it("warns once and still answers when the collector cannot be reached", async () => {
    model = await serveScript([textReply("ok")]);
    receiver = await startOtlpReceiver();
    const closedPort = receiver.url;
    await receiver.close();
    receiver = undefined;
    const env = envFor(model, {
      OTEL_EXPORTER_OTLP_ENDPOINT: closedPort,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    });
    const result = await runTernProcess(["run", "hi"], { env, cwd: tempDir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("ok\n");
    expect(result.stderr.match(/tern: tracing: /g)).toHaveLength(1);
  });
});

describe("tern serve with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("traces each served run with the session as conversation id, a retry as a span event, flushed on SIGTERM", async () => {
    const scripted = await serveScript();
    model = scripted;
    receiver = await startOtlpReceiver();
    const served = await startServe(
      [
        "--port",
        "0",
        "--base-url",
        scripted.providerUrl,
        "--model",
        "scripted",
        "--home",
        tempDir(),
        "--cwd",
        tempDir(),
      ],
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
    );
    const post = (path: string, body: unknown) =>
      fetch(`${served.base}${path}`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify(body) });
    const created = (await (await post("/api/sessions", {})).json()) as { session: { id: string } };
    const id = created.session.id;
    scripted.push({
      kind: "json",
      status: 429,
      headers: { "retry-after-ms": "20" },
      body: { error: { message: "Rate limit reached", type: "rate_limit_error" } },
    });
    scripted.push(textReply("Fine."));
    const frames = await sseReader(await post(`/api/sessions/${id}/messages`, { content: "hi" })).all();
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "Fine." } });

    served.proc.child.kill("SIGTERM");
    expect((await served.proc.done).code).toBe(0);
    const spans = receiver.spans();
    const root = spans.find((span) => span.name === "invoke_agent tern")!;
    expect(root.attributes).toMatchObject({ "gen_ai.conversation.id": id, "tern.stop_reason": "stop" });
    const chat = spans.find((span) => span.name === "chat scripted")!;
    expect(chat.parentSpanId).toBe(root.spanId);
    expect(chat.events).toEqual([
      {
        name: "tern.model_retry",
        attributes: expect.objectContaining({
          "error.type": "rate_limit",
          "http.response.status_code": 429,
        }),
      },
    ]);
  });
});

describe("tracingChoice: which environment switches tracing on", () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };
  it("is off without an endpoint, and for OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none", async () => {
    const { tracingChoice } = await import("../src/runtime/tracing.js");
    expect(tracingChoice({})).toEqual({ on: false });
    expect(tracingChoice({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toEqual({ on: false });
    expect(tracingChoice({ ...endpoint, OTEL_SDK_DISABLED: "true" })).toEqual({ on: false });
    expect(tracingChoice({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toEqual({ on: false });
  });

  it("defaults to http/protobuf; the traces-specific protocol wins; other exporters are named", async () => {
    const { tracingChoice } = await import("../src/runtime/tracing.js");
    expect(tracingChoice(endpoint)).toEqual({ on: true, protocol: "http/protobuf" });
    expect(
      tracingChoice({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      }),
    ).toEqual({ on: true, protocol: "http/json" });
    expect(tracingChoice({ ...endpoint, OTEL_TRACES_EXPORTER: "zipkin" })).toMatchObject({
      on: false,
      problem: expect.stringMatching(/zipkin is not supported/),
    });
  });
});
