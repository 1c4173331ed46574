// One ACP session: a tern runtime (runtime.ts, so the coding-agent factory every host uses) whose
// permission questions go to the editor and whose file and shell tools run where the editor
// offered them, and the prompt turns on it. A prompt sent while a turn runs steers that turn and
// is answered when it ends; `session/cancel` aborts the turn, which then answers "cancelled" and
// leaves the saved session as consistent as any interrupted run (resumable with session/load).
import type {
  AgentContext,
  ClientCapabilities,
  ContentBlock,
  SessionUpdate,
  StopReason,
} from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { type AgentRunResult, type AgentStopReason, HookRegistry } from "@tern/agent";
import type { ImageContent } from "@tern/ai";
import type { McpServerEntry } from "@tern/mcp";
import { PERMISSION_HOOK_PRIORITY } from "@tern/tools";
import type { AgentSettings } from "../config/settings.js";
import { explainFailure } from "../runtime/failure.js";
import { openRuntime, type Runtime, type RuntimeOptions } from "../runtime/runtime.js";
import { clientTools } from "./client-tools.js";
import { askThroughClient } from "./permission.js";
import { agentUpdates, historyUpdates } from "./updates.js";

/** After the policy and checkpoints: a call that reaches it will run, so it is "in_progress". */
const RUNNING_HOOK_PRIORITY = PERMISSION_HOOK_PRIORITY - 10;

export interface AcpSessionWhere {
  client: AgentContext;
  capabilities: ClientCapabilities;
  /** The ACP session id (for session/load, the id the client asked for). */
  sessionId: () => string;
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
  mcpServers: McpServerEntry[];
}

/** What `tern acp` gives openRuntime: the editor asks, the editor's tools, the editor's MCP servers. */
export function acpRuntimeOptions(settings: AgentSettings, where: AcpSessionWhere): RuntimeOptions {
  return {
    settings,
    env: where.env,
    warn: where.warn,
    ask: askThroughClient(where),
    provideTools: clientTools(where),
    mcpServers: where.mcpServers,
  };
}

export class AcpSession {
  private running: Promise<StopReason> | undefined;
  /** Sent in order; a turn's answer waits for its updates. */
  private sent: Promise<void> = Promise.resolve();

  private constructor(
    private readonly sessionId: () => string,
    readonly runtime: Runtime,
    private readonly client: AgentContext,
  ) {}

  static async open(settings: AgentSettings, where: AcpSessionWhere): Promise<AcpSession> {
    const hooks = new HookRegistry();
    const runtime = await openRuntime({ ...acpRuntimeOptions(settings, where), hooks });
    const session = new AcpSession(where.sessionId, runtime, where.client);
    hooks.register({
      event: "PreToolUse",
      name: "acp-status",
      priority: RUNNING_HOOK_PRIORITY,
      handler: async (input) => {
        session.send({
          sessionUpdate: "tool_call_update",
          toolCallId: input.toolCallId,
          status: "in_progress",
        });
        return undefined;
      },
    });
    return session;
  }

  /** session/load: the saved conversation, replayed as the updates it made live. */
  async replay(): Promise<void> {
    const messages = this.runtime.resumed?.context.messages ?? [];
    for (const update of historyUpdates(messages, this.runtime.cwd)) this.send(update);
    await this.sent;
  }

  async prompt(blocks: ContentBlock[]): Promise<StopReason> {
    const { text, images } = promptContent(blocks);
    if (text.trim() === "" && images.length === 0)
      throw RequestError.invalidParams(undefined, "the prompt has no text, file or image tern can read");
    if (this.running) {
      // The loop reads steering between turns: the running turn takes it and answers for both.
      this.runtime.agent.steer({
        role: "user",
        content: [{ type: "text", text }, ...images],
        timestamp: Date.now(),
      });
      return this.running;
    }
    const turn = this.turn(text, images);
    this.running = turn;
    try {
      return await turn;
    } finally {
      this.running = undefined;
    }
  }

  cancel(): void {
    this.runtime.agent.abort();
  }

  close(): Promise<void> {
    this.runtime.agent.abort();
    return this.runtime.close();
  }

  private async turn(text: string, images: ImageContent[]): Promise<StopReason> {
    const { agent, cwd, model } = this.runtime;
    const map = agentUpdates(cwd, model);
    const unsubscribe = agent.subscribe((event) => {
      for (const update of map(event)) this.send(update);
    });
    let result: AgentRunResult;
    try {
      // A plan's steps take the tools the agent has when it starts; a loop waits (cancellably) in
      // its first turn, so only a plan waits here (as `tern run` does).
      const { mcp, coding } = this.runtime;
      if (mcp && (coding.options.strategy ?? "loop") !== "loop") await mcp.waitForStartup();
      result = await agent.prompt(text, { images });
      // Steering that came after the loop's last look at its queue is still this turn's.
      while (result.stopReason === "stop" && agent.queuedMessages.steering.length > 0)
        result = await agent.continue();
    } finally {
      unsubscribe();
      await this.sent;
    }
    if (result.stopReason === "error")
      throw RequestError.internalError(undefined, explainFailure(result, model));
    return STOP_REASONS[result.stopReason];
  }

  private send(update: SessionUpdate): void {
    const notification = { sessionId: this.sessionId(), update };
    this.sent = this.sent.then(() => this.client.notify("session/update", notification)).catch(() => {});
  }
}

/** tern's stop reasons in ACP's words; "error" is a JSON-RPC error instead. */
const STOP_REASONS: Record<Exclude<AgentStopReason, "error">, StopReason> = {
  stop: "end_turn",
  terminated: "end_turn",
  stopped_by_caller: "end_turn",
  length: "max_tokens",
  aborted: "cancelled",
  max_iterations: "max_turn_requests",
  // A hook (UserPromptSubmit "block", PreToolUse "terminate") refused to go on.
  stopped_by_hook: "refusal",
};

/**
 * A prompt's blocks as tern's input: text as it is, images as images, an embedded resource (a file
 * the editor attached) as its text under its URI, a link as its URI for the agent to read.
 */
export function promptContent(blocks: readonly ContentBlock[]): { text: string; images: ImageContent[] } {
  const parts: string[] = [];
  const images: ImageContent[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "image")
      images.push({ type: "image", data: block.data, mimeType: block.mimeType });
    else if (block.type === "resource_link") parts.push(`[${block.name}](${block.uri})`);
    else if (block.type === "resource" && "text" in block.resource)
      parts.push(`<file uri="${block.resource.uri}">\n${block.resource.text}\n</file>`);
  }
  return { text: parts.join("\n\n"), images };
}
