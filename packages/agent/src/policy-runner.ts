// Calls every policy's hooks in array order at the loop's fixed points. A policy that throws is
// reported as an `error` event (source "policy") and counts as having no opinion, so one broken
// policy never ends a run.

import type { AssistantMessage, StreamFunction } from "@tern/ai";
import type {
  LoopPolicy,
  PolicyHooks,
  PolicyInjection,
  PolicyRun,
  PolicyStop,
  RunEndInfo,
  ToolBatch,
} from "./policy.js";
import { describeThrown } from "./tool-result.js";
import type { AgentEvent, AgentMessage, AnyAgentTool } from "./types.js";

// biome-ignore lint/suspicious/noConfusingVoidType: hooks that have nothing to say return nothing
type MaybeInjections = PolicyInjection[] | undefined | void | Promise<PolicyInjection[] | undefined | void>;

interface Started {
  name: string;
  hooks: PolicyHooks;
}

export class PolicyRunner {
  private started: Started[] = [];

  constructor(
    private readonly policies: readonly LoopPolicy[],
    private readonly emit: (event: AgentEvent) => Promise<void>,
  ) {}

  /** The loop's stream function with every policy's model adapter around it (first policy outermost). */
  wrapStream(base: StreamFunction): StreamFunction {
    let fn = base;
    for (let i = this.policies.length - 1; i >= 0; i--) {
      const policy = this.policies[i]!;
      if (!policy.wrapStream) continue;
      try {
        fn = policy.wrapStream(fn);
      } catch (error) {
        void this.report(policy.name, error);
      }
    }
    return fn;
  }

  async start(run: PolicyRun): Promise<void> {
    for (const policy of this.policies) {
      try {
        const hooks = await policy.start(run);
        if (hooks) this.started.push({ name: policy.name, hooks });
      } catch (error) {
        await this.report(policy.name, error);
      }
    }
  }

  async beforeTurn(run: PolicyRun): Promise<PolicyStop | undefined> {
    for (const { name, hooks } of this.started) {
      if (!hooks.beforeTurn) continue;
      const stop = await this.guard(name, () => hooks.beforeTurn!(run));
      if (stop) return stop;
    }
    return undefined;
  }

  async beforeModelCall(run: PolicyRun): Promise<void> {
    for (const { name, hooks } of this.started) {
      if (hooks.beforeModelCall) await this.guard(name, () => hooks.beforeModelCall!(run));
    }
  }

  /** The turn's tools after every filter; a filter that throws leaves the list as it was. */
  async tools(tools: readonly AnyAgentTool[], run: PolicyRun): Promise<readonly AnyAgentTool[]> {
    let current = tools;
    for (const { name, hooks } of this.started) {
      if (!hooks.tools) continue;
      const next = await this.guard(name, () => hooks.tools!(current, run));
      if (Array.isArray(next)) current = next;
    }
    return current;
  }

  async onModelError(run: PolicyRun, message: AssistantMessage): Promise<boolean> {
    let retry = false;
    for (const { name, hooks } of this.started) {
      if (!hooks.onModelError) continue;
      const verdict = await this.guard(name, () => hooks.onModelError!(run, message));
      if (verdict?.retry) retry = true;
    }
    return retry;
  }

  async afterToolBatch(run: PolicyRun, batch: ToolBatch): Promise<PolicyInjection[]> {
    return this.collect((hooks) => hooks.afterToolBatch?.(run, batch));
  }

  async onSteering(run: PolicyRun, messages: AgentMessage[]): Promise<PolicyInjection[] | undefined> {
    for (const { name, hooks } of this.started) {
      if (!hooks.onSteering) continue;
      const injections = await this.guard(name, () => hooks.onSteering!(run, messages));
      if (injections && injections.length > 0) return injections;
    }
    return undefined;
  }

  /** The first policy that rejects the answer speaks; the others see the next final answer. */
  async onFinalAnswer(run: PolicyRun, message: AssistantMessage): Promise<PolicyInjection[]> {
    for (const { name, hooks } of this.started) {
      if (!hooks.onFinalAnswer) continue;
      const injections = await this.guard(name, () => hooks.onFinalAnswer!(run, message));
      if (injections && injections.length > 0) return injections;
    }
    return [];
  }

  /** The answer after every policy had its say. */
  async onRunEnd(run: PolicyRun, end: RunEndInfo): Promise<string> {
    let answer = end.answer;
    for (const { name, hooks } of this.started) {
      if (!hooks.onRunEnd) continue;
      const out = await this.guard(name, () => hooks.onRunEnd!(run, { ...end, answer }));
      if (out && typeof out.answer === "string") answer = out.answer;
    }
    return answer;
  }

  private async collect(call: (hooks: PolicyHooks) => MaybeInjections): Promise<PolicyInjection[]> {
    const all: PolicyInjection[] = [];
    for (const { name, hooks } of this.started) {
      const injections = await this.guard(name, () => call(hooks));
      if (injections) all.push(...injections);
    }
    return all;
  }

  private async guard<T>(name: string, call: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      await this.report(name, error);
      return undefined;
    }
  }

  private report(name: string, error: unknown): Promise<void> {
    return this.emit({
      type: "error",
      source: "policy",
      message: `Policy "${name}" failed: ${describeThrown(error)}`,
    });
  }
}
