// The scripted OpenAI-compatible Chat Completions server, run as its own process (fork this
// file; it sends `{ port }` when listening). Base URL of a lane: `http://127.0.0.1:<port>/<lane>/v1`
// where lane is `<workload>.<runtime>.<phase>`. It streams real SSE chunks with a usage chunk,
// counts prompt tokens of every request with the one estimator, and rejects (HTTP 400) any
// request whose tool results differ from the script's.
//
// Side channels for the workers: GET /_report/<lane> (LaneReport), GET /_clock (this process's
// monotonic clock), GET /_cpu (this process's CPU time so far), GET /_sendtimes/<lane>/<run> (latency chunk send times), POST /_release/<lane>.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { judge } from "./judge.js";
import { Lane } from "./lane.js";
import { isWarmUp, SCRIPTS, type Script, type WorkloadId } from "./script.js";
import { promptTokens, textTokens } from "./tokens.js";
import { ChunkWriter, DONE, pieces } from "./wire.js";

const BARRIER_TIMEOUT_MS = 60_000;
const lanes = new Map<string, Lane>();
const lane = (name: string) => {
  let found = lanes.get(name);
  if (!found) {
    found = new Lane();
    lanes.set(name, found);
  }
  return found;
};
let completions = 0;

const json = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function completion(req: IncomingMessage, res: ServerResponse, laneName: string): Promise<void> {
  const workload = laneName.split(".")[0] as WorkloadId;
  const script: Script | undefined = SCRIPTS[workload];
  const text = await readBody(req);
  const counts = lane(laneName);
  counts.requests++;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    counts.reject("body is not JSON");
    return json(res, 400, { error: { message: "body is not JSON", type: "invalid_request_error" } });
  }
  const prompt = promptTokens(body);
  counts.promptTokens += prompt;
  if (Array.isArray(body.tools)) counts.toolsOffered += body.tools.length;
  const verdict = script
    ? judge(script, body)
    : ({ kind: "reject", message: `unknown workload ${workload}` } as const);
  if (verdict.kind === "reject") {
    counts.reject(verdict.message);
    return json(res, 400, { error: { message: verdict.message, type: "invalid_request_error" } });
  }
  const out = new ChunkWriter(`chatcmpl-bench${++completions}`, String(body.model ?? "bench"));
  const events: string[] = [];
  let completionText = "";
  let answer = false;
  if (verdict.kind === "call" || verdict.kind === "structured") {
    const name = verdict.kind === "call" ? verdict.call.name : verdict.tool;
    const args = JSON.stringify(verdict.kind === "call" ? verdict.call.args : verdict.args);
    const callId = verdict.kind === "call" ? `call_${verdict.runId}_${verdict.turn}` : "call_structured";
    events.push(out.toolCallStart(callId, name));
    for (const piece of pieces(args, script!.argChunkChars)) events.push(out.toolCallArgs(piece));
    events.push(out.finish("tool_calls"));
    completionText = name + args;
    if (verdict.kind === "structured") counts.structuredRequests++;
  } else {
    answer = true;
    events.push(out.role());
    for (const piece of pieces(script!.answer, script!.textChunkChars)) events.push(out.text(piece));
    events.push(out.finish("stop"));
    completionText = script!.answer;
    counts.runs.set(verdict.runId, verdict.digest);
  }
  const completionTokens = textTokens(completionText);
  counts.completionTokens += completionTokens;
  events.push(
    out.usage({
      prompt_tokens: prompt,
      completion_tokens: completionTokens,
      total_tokens: prompt + completionTokens,
    }),
  );
  events.push(DONE);

  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  let closed = false;
  res.on("close", () => {
    closed = true;
  });
  const hold = verdict.kind === "answer" && script!.barrier === true && !isWarmUp(verdict.runId);
  const times = answer && script!.recordSendTimes ? ([] as bigint[]) : undefined;
  if (times && verdict.kind === "answer") counts.sendTimes.set(verdict.runId, times);
  // Answer chunks are events 1..n (after the role chunk); the latency workload timestamps each.
  for (let i = 0; i < events.length && !closed; i++) {
    if (i > 0 && script!.gapMs > 0) await sleep(script!.gapMs);
    if (hold && i === 2) await counts.barrier(BARRIER_TIMEOUT_MS);
    if (times && i >= 1 && i < events.length - 3) times.push(process.hrtime.bigint());
    res.write(events[i]);
  }
  res.end();
}

const server = createServer((req, res) => {
  const url = req.url ?? "/";
  const [, head, a, b] = url.split("/");
  if (req.method === "POST" && url.endsWith("/chat/completions") && head) {
    completion(req, res, head).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: { message: String(error) } });
      else res.destroy();
    });
    return;
  }
  if (head === "_clock") return json(res, 200, { ns: process.hrtime.bigint().toString() });
  if (head === "_cpu") {
    const used = process.cpuUsage();
    return json(res, 200, { cpuMs: (used.user + used.system) / 1000, connections });
  }
  if (head === "_report" && a) return json(res, 200, lane(a).report());
  if (head === "_sendtimes" && a && b) return json(res, 200, (lane(a).sendTimes.get(b) ?? []).map(String));
  if (head === "_release" && a) {
    lane(a).release();
    return json(res, 200, { released: a });
  }
  json(res, 404, { error: { message: `no route ${req.method} ${url}` } });
});
let connections = 0;
server.on("connection", () => {
  connections++;
});
server.keepAliveTimeout = 30_000;
server.headersTimeout = 60_000;
// A thousand sessions connect at once: a deep accept backlog avoids SYN retries (1 s stalls).
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on("disconnect", () => process.exit(0));
