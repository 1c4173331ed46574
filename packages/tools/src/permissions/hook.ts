// Puts the permission policy in front of every tool call as a PreToolUse hook: the loop runs the
// hook before `execute`, so the model cannot get around it.

import type { HookDefinition, HookRegistry } from "@tern/agent";
import { PermissionPolicy } from "./policy.js";
import type { PermissionOptions } from "./types.js";

/** Lowest priority: it runs after every other PreToolUse hook and judges the final arguments. */
export const PERMISSION_HOOK_PRIORITY = -1_000_000;
/** Asking a person takes time: the hook must not hit the registry's default 30 s timeout. */
const NO_TIMEOUT_MS = 2_147_483_647;

export function permissionHook(policy: PermissionPolicy): HookDefinition<"PreToolUse"> {
  return {
    event: "PreToolUse",
    name: "permissions",
    priority: PERMISSION_HOOK_PRIORITY,
    timeoutMs: NO_TIMEOUT_MS,
    // If the policy itself fails, the call is denied rather than let through.
    failClosed: true,
    handler: async (input, { signal }) => {
      const decision = await policy.decide(input, signal);
      return decision.allow ? { decision: "allow" } : { decision: "deny", reason: decision.reason };
    },
  };
}

/** Creates a policy and registers its hook; `dispose()` removes the hook again. */
export function installPermissions(
  hooks: HookRegistry,
  options: PermissionOptions | PermissionPolicy = {},
): { policy: PermissionPolicy; dispose: () => void } {
  const policy = options instanceof PermissionPolicy ? options : new PermissionPolicy(options);
  const dispose = hooks.register(permissionHook(policy));
  return { policy, dispose };
}
