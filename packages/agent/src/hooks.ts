import type { UserMessage } from "@tern/ai";
import { globMatcher } from "./glob.js";
import { describeThrown, normalizeToolResult } from "./tool-result.js";
import type {
  AgentEvent,
  Hook,
  HookDefinition,
  HookEventName,
  HookFailure,
  HookIO,
  PostToolUseFailureInput,
  PostToolUseInput,
  PreToolUseInput,
  SessionStartInput,
  StopInput,
  ToolOutcome,
  UserPromptSubmitInput,
} from "./types.js";

export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

/** Receives hook crashes and timeouts; the loop turns them into `error` events. */
export type HookFailureReporter = (failure: HookFailure) => void | Promise<void>;

/** The `error` event for a hook that failed: one wording for every hook event, in a run or not. */
export function hookFailureEvent(failure: HookFailure): Extract<AgentEvent, { type: "error" }> {
  const closed = failure.failClosed ? " (fail-closed)" : "";
  const event: Extract<AgentEvent, { type: "error" }> = {
    type: "error",
    source: "hook",
    message: `${failure.event} hook "${failure.hookName}" failed${closed}: ${failure.message}`,
    hookEvent: failure.event,
    hookName: failure.hookName,
  };
  if (failure.toolCallId !== undefined) event.toolCallId = failure.toolCallId;
  return event;
}

export interface HookRegistryOptions {
  /** Timeout for hooks that set none. Default 30 s. */
  defaultTimeoutMs?: number;
}

export interface PreToolUseDecision {
  action: "allow" | "deny" | "terminate";
  /** The arguments after every rewrite. */
  args: Record<string, unknown>;
  argsRewritten: boolean;
  reason?: string;
  hookName?: string;
}

export interface PromptDecision {
  message: UserMessage;
  /** Set when a hook blocked the prompt. */
  blocked?: string;
}

interface Entry {
  hook: Hook;
  name: string;
  priority: number;
  order: number;
  matches: (toolName: string) => boolean;
}

type Outcome<E extends HookEventName> = { ok: true; output: HookIO[E]["output"] | undefined } | { ok: false };

/**
 * The hook registry every layer shares. Hooks of one event run one after another in priority
 * order, so rewrites chain and the first deny wins. A hook that throws or times out is reported
 * and counts as "no opinion", unless it is fail-closed.
 */
export class HookRegistry {
  private readonly entries = new Map<HookEventName, Entry[]>();
  private registered = 0;
  private readonly defaultTimeoutMs: number;

  constructor(hooks: Hook[] = [], options: HookRegistryOptions = {}) {
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    for (const hook of hooks) this.register(hook);
  }

  /** Adds a hook; returns a function that removes it. */
  register(hook: Hook): () => void {
    const order = this.registered++;
    const entry: Entry = {
      hook,
      name: hook.name ?? `${hook.event}#${order + 1}`,
      priority: hook.priority ?? 0,
      order,
      matches: globMatcher(hook.matcher),
    };
    const list = this.entries.get(hook.event) ?? [];
    list.push(entry);
    list.sort((a, b) => b.priority - a.priority || a.order - b.order);
    this.entries.set(hook.event, list);
    return () => {
      const current = this.entries.get(hook.event);
      const index = current?.indexOf(entry) ?? -1;
      if (index >= 0) current!.splice(index, 1);
    };
  }

  /** Shorthand for `register({ event, handler, ...options })`. */
  on<E extends HookEventName>(
    event: E,
    handler: HookDefinition<E>["handler"],
    options: Omit<HookDefinition<E>, "event" | "handler"> = {},
  ): () => void {
    return this.register({ ...options, event, handler } as unknown as Hook);
  }

  count(event: HookEventName, toolName?: string): number {
    const list = this.entries.get(event);
    if (!list) return 0;
    if (toolName === undefined) return list.length;
    return list.filter((entry) => entry.matches(toolName)).length;
  }

  async runPreToolUse(
    input: PreToolUseInput,
    report: HookFailureReporter,
    signal?: AbortSignal,
  ): Promise<PreToolUseDecision> {
    let args = input.args;
    let argsRewritten = false;
    for (const entry of this.matching("PreToolUse", input.toolName)) {
      const outcome = await this.invoke<"PreToolUse">(
        entry,
        { ...input, args },
        report,
        signal,
        input.toolCallId,
      );
      if (!outcome.ok) {
        if (!entry.hook.failClosed) continue;
        return {
          action: "deny",
          args,
          argsRewritten,
          hookName: entry.name,
          reason: `the guard hook "${entry.name}" failed, so the call is denied`,
        };
      }
      const output = outcome.output;
      if (!output) continue;
      if (output.args) {
        args = output.args;
        argsRewritten = true;
      }
      if (output.decision === "deny" || output.decision === "terminate") {
        return {
          action: output.decision,
          args,
          argsRewritten,
          hookName: entry.name,
          reason: output.reason ?? `denied by hook "${entry.name}"`,
        };
      }
    }
    return { action: "allow", args, argsRewritten };
  }

  runPostToolUse(input: PostToolUseInput, report: HookFailureReporter, signal?: AbortSignal) {
    return this.rewriteResult("PostToolUse", input, report, signal);
  }

  runPostToolUseFailure(input: PostToolUseFailureInput, report: HookFailureReporter, signal?: AbortSignal) {
    return this.rewriteResult("PostToolUseFailure", input, report, signal);
  }

  async runUserPromptSubmit(
    input: UserPromptSubmitInput,
    report: HookFailureReporter,
    signal?: AbortSignal,
  ): Promise<PromptDecision> {
    let message = input.message;
    let prompt = input.prompt;
    for (const entry of this.matching("UserPromptSubmit")) {
      const outcome = await this.invoke<"UserPromptSubmit">(entry, { message, prompt }, report, signal);
      if (!outcome.ok) {
        if (entry.hook.failClosed) return { message, blocked: `the prompt hook "${entry.name}" failed` };
        continue;
      }
      const output = outcome.output;
      if (!output) continue;
      if (output.decision === "block")
        return { message, blocked: output.reason ?? `blocked by "${entry.name}"` };
      if (output.prompt !== undefined) {
        prompt = output.prompt;
        message = withText(message, prompt);
      }
      if (output.additionalContext) message = withExtraText(message, output.additionalContext);
    }
    return { message };
  }

  /** Returns the reason of the first hook that blocks the stop. */
  async runStop(
    input: StopInput,
    report: HookFailureReporter,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    for (const entry of this.matching("Stop")) {
      const outcome = await this.invoke<"Stop">(entry, input, report, signal);
      if (outcome.ok && outcome.output?.decision === "block") {
        return outcome.output.reason ?? `The stop hook "${entry.name}" asked you to continue.`;
      }
    }
    return undefined;
  }

  /** Returns the context every SessionStart hook added. */
  async runSessionStart(
    input: SessionStartInput,
    report: HookFailureReporter,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const added: string[] = [];
    for (const entry of this.matching("SessionStart")) {
      const outcome = await this.invoke<"SessionStart">(entry, input, report, signal);
      if (outcome.ok && outcome.output?.additionalContext) added.push(outcome.output.additionalContext);
    }
    return added;
  }

  private async rewriteResult(
    event: "PostToolUse" | "PostToolUseFailure",
    input: PostToolUseInput | PostToolUseFailureInput,
    report: HookFailureReporter,
    signal?: AbortSignal,
  ): Promise<ToolOutcome> {
    let result = input.result;
    for (const entry of this.matching(event, input.toolName)) {
      const outcome = await this.invoke<typeof event>(
        entry,
        { ...input, result } as PostToolUseFailureInput,
        report,
        signal,
        input.toolCallId,
      );
      if (outcome.ok && outcome.output?.result) result = normalizeToolResult(outcome.output.result);
    }
    return result;
  }

  private matching(event: HookEventName, toolName?: string): Entry[] {
    const list = this.entries.get(event);
    if (!list || list.length === 0) return [];
    // A copy, so a hook that unregisters itself does not disturb this pass.
    return toolName === undefined ? [...list] : list.filter((entry) => entry.matches(toolName));
  }

  private async invoke<E extends HookEventName>(
    entry: Entry,
    input: HookIO[E]["input"],
    report: HookFailureReporter,
    signal: AbortSignal | undefined,
    toolCallId?: string,
  ): Promise<Outcome<E>> {
    const timeoutMs = entry.hook.timeoutMs ?? this.defaultTimeoutMs;
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) forwardAbort();
    else signal?.addEventListener("abort", forwardAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const handler = entry.hook.handler as HookDefinition<E>["handler"];
      const run = Promise.resolve().then(() => handler(input, { signal: controller.signal }));
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HookTimeout(timeoutMs)), timeoutMs);
      });
      const output = await Promise.race([run, timeout]);
      return { ok: true, output: output ?? undefined };
    } catch (error) {
      const timedOut = error instanceof HookTimeout;
      if (timedOut) controller.abort(error);
      const failure: HookFailure = {
        event: entry.hook.event,
        hookName: entry.name,
        message: timedOut ? error.message : describeThrown(error),
        timedOut,
        failClosed: entry.hook.failClosed === true,
      };
      if (toolCallId !== undefined) failure.toolCallId = toolCallId;
      try {
        await report(failure);
      } catch {
        // A failing reporter must not turn a hook failure into a loop failure.
      }
      return { ok: false };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", forwardAbort);
    }
  }
}

class HookTimeout extends Error {
  constructor(ms: number) {
    super(`hook timed out after ${ms} ms`);
    this.name = "HookTimeout";
  }
}

function withText(message: UserMessage, text: string): UserMessage {
  if (typeof message.content === "string") return { ...message, content: text };
  const images = message.content.filter((part) => part.type !== "text");
  return { ...message, content: [{ type: "text", text }, ...images] };
}

function withExtraText(message: UserMessage, text: string): UserMessage {
  const parts =
    typeof message.content === "string"
      ? [{ type: "text" as const, text: message.content }]
      : message.content;
  return { ...message, content: [...parts, { type: "text", text }] };
}
