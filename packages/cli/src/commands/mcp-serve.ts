// `tern mcp serve`: tern itself as an MCP server on stdin/stdout (the official SDK's McpServer and
// stdio transport), so any MCP host can hand a task to it. One tool, `run_task`: the agent of
// `tern run` works on the prompt in a workspace (its `cwd`, inside --cwd or an --allow-root) and
// returns the answer; each turn and tool call is a progress notification; cancelling the request
// aborts the run. The flags are a ceiling: a call may ask for a stricter permission mode, never a
// looser one. Nobody can be asked, so a call that needs permission is denied (the model is told
// why). Stdout carries the protocol: everything else goes to stderr. A request over
// --max-message bytes gets a JSON-RPC error and the server goes on (mcp-line-limit.ts).
import { resolve } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AgentEvent } from "@tern/agent";
import { MAX_MESSAGE_BYTES } from "@tern/server";
import { PERMISSION_MODES, type PermissionMode } from "@tern/tools";
import { z } from "zod";
import { AGENT_OPTIONS, parseCommandArgs, stringOption } from "../cli/args.js";
import type { ExitCode } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { chooseModel, createRegistry, ensureConfiguredKey } from "../config/model.js";
import type { AgentSettings } from "../config/settings.js";
import { positiveInteger } from "../config/values.js";
import { helpFor, wantsHelp } from "../help.js";
import type { openRuntime } from "../runtime/runtime.js";
import { VERSION } from "../version.js";
import { LineLimit, type OverLimit } from "./mcp-line-limit.js";
import { allowedRoots, commandContext, workspaceIn } from "./shared.js";

export const RUN_TASK_TOOL = "run_task";

/** From the most restrictive to the least: a call may move left of the configured mode only. */
const STRICTNESS: readonly PermissionMode[] = ["read-only", "ask", "accept-edits", "bypass"];

const { session: _noResume, ...SERVED_OPTIONS } = AGENT_OPTIONS;
const OPTIONS = {
  ...SERVED_OPTIONS,
  "allow-root": { type: "string", multiple: true },
  "max-message": { type: "string" },
} as const;
/** JSON-RPC's code for a request the server will not read. */
const INVALID_REQUEST = -32600;

const DESCRIPTION =
  "Runs a task with tern, a coding agent that reads, edits and runs code in a workspace, and returns its final answer. " +
  "Give the whole task in `prompt`; `cwd` picks the workspace (default: the server's). " +
  "Progress notifications report each turn and tool call.";

export async function mcpServeCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs("mcp serve", argv, OPTIONS, 0);
  if (wantsHelp(values, io, helpFor("mcp"))) return 0;
  const { settings, warn } = commandContext(values, io);
  const maxMessageBytes =
    positiveInteger("--max-message", stringOption(values, "max-message")) ?? MAX_MESSAGE_BYTES;
  const roots = allowedRoots(values, settings, io);
  // The model and its key are checked now: a bad flag is exit 2 before the host connects.
  const model = chooseModel(createRegistry(settings, warn), settings, io.env, settings.config.path);
  await ensureConfiguredKey(model, settings, io.env);

  const server = new McpServer({ name: "tern", version: VERSION });
  server.registerTool(
    RUN_TASK_TOOL,
    {
      title: "Run a task with tern",
      description: DESCRIPTION,
      inputSchema: {
        prompt: z.string().min(1).describe("The task, as you would type it to tern run"),
        cwd: z.string().optional().describe("The workspace directory (inside the server's allowed roots)"),
        mode: z
          .enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]])
          .optional()
          .describe(
            `Permission mode for this task; at most as permissive as the server's (${settings.mode})`,
          ),
      },
      annotations: { readOnlyHint: settings.mode === "read-only", openWorldHint: true },
    },
    (args, extra) =>
      runTask(args, settings, roots, io, {
        signal: extra.signal,
        progress: (progress, message) => {
          const token = extra._meta?.progressToken;
          if (token === undefined) return;
          void extra
            .sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress, message },
            })
            .catch(() => {});
        },
      }),
  );

  // Lines over the limit never reach the SDK (whose own buffer limit would close the transport);
  // the ones that do are whole, so its buffer needs no limit of its own.
  const input = io.stdin.pipe(new LineLimit(maxMessageBytes, (line) => tooLarge(line, io)));
  const transport = new StdioServerTransport(input, io.stdout, { maxBufferSize: Number.MAX_SAFE_INTEGER });
  server.server.onerror = (error) => io.stderr.write(`tern mcp serve: ${error.message}\n`);
  const closed = new Promise<void>((done) => {
    transport.onclose = () => done();
    // The host ends the session by closing our stdin (or with a signal).
    io.stdin.once("end", () => void server.close());
    process.once("SIGINT", () => void server.close());
    process.once("SIGTERM", () => void server.close());
  });
  await server.connect(transport);
  io.stderr.write(`tern mcp serve: ready on stdio (tool ${RUN_TASK_TOOL}, permissions ${settings.mode})\n`);
  await closed;
  return 0;
}

/** Answers a request over the size limit with a JSON-RPC error, on stdout beside the SDK's replies. */
function tooLarge({ size, limit, id }: OverLimit, io: Io): void {
  const message = `Request too large: ${size} bytes, over the ${limit}-byte limit (--max-message)`;
  io.stderr.write(`tern mcp serve: ${message}\n`);
  // Without an id the reply has none: the MCP SDK's schema takes a missing id, not JSON-RPC's null.
  const reply = {
    jsonrpc: "2.0",
    ...(id !== null ? { id } : {}),
    error: { code: INVALID_REQUEST, message, data: { code: "too_large", size, limit } },
  };
  io.stdout.write(`${JSON.stringify(reply)}\n`);
}

interface TaskArgs {
  prompt: string;
  cwd?: string | undefined;
  mode?: PermissionMode | undefined;
}

interface TaskContext {
  signal: AbortSignal;
  progress: (progress: number, message: string) => void;
}

async function runTask(
  args: TaskArgs,
  settings: AgentSettings,
  roots: readonly string[],
  io: Io,
  context: TaskContext,
): Promise<CallToolResult> {
  const cwd = workspaceIn(
    resolve(settings.cwd, args.cwd ?? "."),
    roots,
    "this server",
    "--cwd, --allow-root",
  );
  if (typeof cwd !== "string") return failure(cwd.error);
  const mode = args.mode ?? settings.mode;
  if (STRICTNESS.indexOf(mode) > STRICTNESS.indexOf(settings.mode))
    return failure(`mode "${mode}" is more permissive than this server allows ("${settings.mode}")`);
  // The agent (most of the bundle) loads at the first call, so `initialize` is answered without it.
  const [{ openRuntime: open }, { explainFailure }] = await Promise.all([
    import("../runtime/runtime.js"),
    import("../runtime/failure.js"),
  ]);
  let runtime: Awaited<ReturnType<typeof openRuntime>>;
  try {
    runtime = await open({
      settings: { ...settings, cwd, explicitCwd: true, mode },
      env: io.env,
      warn: (message) => io.stderr.write(`tern mcp serve: warning: ${message}\n`),
    });
  } catch (error) {
    return failure((error as Error).message);
  }
  const { agent } = runtime;
  let step = 0;
  agent.subscribe((event: AgentEvent) => {
    const message = progressMessage(event);
    if (message !== undefined) context.progress(++step, message);
  });
  const abort = () => agent.abort();
  context.signal.addEventListener("abort", abort, { once: true });
  try {
    const result = await agent.prompt(args.prompt);
    const summary = {
      answer: result.answer,
      stopReason: result.stopReason,
      sessionId: runtime.session.id,
      cwd,
      mode,
    };
    if (result.stopReason === "error" || result.stopReason === "aborted")
      return { ...failure(explainFailure(result, runtime.model)), structuredContent: summary };
    return { content: [{ type: "text", text: result.answer }], structuredContent: summary };
  } finally {
    context.signal.removeEventListener("abort", abort);
    await runtime.close();
  }
}

/** What a host sees as progress: each turn and each tool call. */
function progressMessage(event: AgentEvent): string | undefined {
  if (event.type === "turn_start") return `turn ${event.turn}`;
  if (event.type === "tool_execution_start") return `calling ${event.toolName}`;
  return undefined;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
