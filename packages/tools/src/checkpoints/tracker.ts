// Checkpoints as hooks: before a write/edit call runs, the file it names is snapshotted; around a
// `bash` call the workspace is scanned (workspace-scan.ts). After each, the state the tool left is
// hashed, so a rewind can tell a later change made outside tern. Records go to the session's
// CheckpointStore under the current turn. Tools of other kinds (MCP tools, custom tools) are not
// tracked. A snapshot that fails is reported as a hook failure; the call still runs.

import type { HookRegistry } from "@tern/agent";
import { PERMISSION_HOOK_PRIORITY } from "../permissions/hook.js";
import type { AnyBuiltinTool } from "../types.js";
import type { Workspace } from "../workspace.js";
import { type CheckpointStore, currentState } from "./store.js";
import { type ScanResult, WorkspaceScanner } from "./workspace-scan.js";

/** After the permission hook: only calls that will run are snapshotted. */
export const CHECKPOINT_HOOK_PRIORITY = PERMISSION_HOOK_PRIORITY - 1;
/** A workspace scan is bounded by file count, not time; the registry's 30 s default could cut it. */
const SCAN_TIMEOUT_MS = 10 * 60_000;

export interface CheckpointOptions {
  store: CheckpointStore;
  /** The built-in tools (their kinds and workspace say what to snapshot). */
  tools: readonly AnyBuiltinTool[];
  /** The id of the turn now running (the session entry of its user message). */
  turn: () => string;
}

/** Registers the checkpoint hooks; returns a function that removes them. */
export function installCheckpoints(hooks: HookRegistry, options: CheckpointOptions): () => void {
  const { store, turn } = options;
  const kinds = new Map(options.tools.map((tool) => [tool.name, tool.kind]));
  const ws = options.tools.find((tool) => tool.workspace)?.workspace;
  if (!ws) return () => {};
  const scanner = new WorkspaceScanner(ws, store);
  const pending = new Map<string, { turn: string; scan?: ScanResult; abs?: string }>();

  const before = async (toolName: string, toolCallId: string, args: Record<string, unknown>) => {
    const kind = kinds.get(toolName);
    const now = turn();
    if (kind === "write") {
      const abs = await targetOf(ws, args);
      if (!abs) return;
      pending.set(toolCallId, { turn: now, abs });
      await store.append({
        type: "before",
        turn: now,
        tool: toolName,
        path: abs,
        state: await store.snapshot(abs),
      });
    } else if (kind === "exec") {
      const scan = await scanner.before();
      pending.set(toolCallId, { turn: now, scan });
      if (scan.limited)
        await store.append({ type: "untracked", turn: now, tool: toolName, note: scan.limited });
    }
  };

  const after = async (toolName: string, toolCallId: string) => {
    const call = pending.get(toolCallId);
    if (!call) return;
    pending.delete(toolCallId);
    if (call.abs) {
      const state = await currentState(call.abs);
      await store.append({ type: "after", turn: call.turn, tool: toolName, path: call.abs, state });
    } else if (call.scan) {
      for (const change of await scanner.after(call.scan)) {
        const base = { turn: call.turn, tool: toolName, path: change.abs };
        await store.append({ ...base, type: "before", state: change.before });
        await store.append({ ...base, type: "after", state: await currentState(change.abs) });
      }
    }
  };

  const removers = [
    hooks.register({
      event: "PreToolUse",
      name: "checkpoints",
      priority: CHECKPOINT_HOOK_PRIORITY,
      timeoutMs: SCAN_TIMEOUT_MS,
      handler: async (input) => {
        await before(input.toolName, input.toolCallId, input.args);
        return undefined;
      },
    }),
    // A call that failed may still have changed files: record what it left either way.
    ...(["PostToolUse", "PostToolUseFailure"] as const).map((event) =>
      hooks.register({
        event,
        name: "checkpoints",
        timeoutMs: SCAN_TIMEOUT_MS,
        handler: async (input: { toolName: string; toolCallId: string }) => {
          await after(input.toolName, input.toolCallId);
          return undefined;
        },
      }),
    ),
  ];
  return () => {
    for (const remove of removers) remove();
  };
}

async function targetOf(ws: Workspace, args: Record<string, unknown>): Promise<string | undefined> {
  if (typeof args.path !== "string") return undefined;
  const resolved = await ws.resolve(args.path);
  return resolved.ok ? resolved.abs : undefined;
}
