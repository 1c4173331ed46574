// Every host builds the same coding agent from the same settings: each row below calls its host's
// entry point the way its command does (openRuntime for run, chat, sessions resume, mcp serve, acp;
// the engine's configureAgent for serve, a cluster worker and demo --web), in process, from one
// home and one workspace: a user deny rule and a settings hook, a project (.tern/config.json)
// with an approved allow rule, a deny rule and an approved hook, project instructions, and two
// Agent Skills (a project one whose allowed-tools were approved, a user one). What comes out
// (permission rules, hook registrations, tools, policies, system prompt) must be the same
// everywhere, so the next drift between hosts fails here rather than for a user.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agent as acpAgentApp, client as acpClientApp } from "@agentclientprotocol/sdk";
import {
  type AgentOptions,
  contextGuard,
  contextWindowCheck,
  type Hook,
  HookRegistry,
  reactPolicies,
} from "@tern/agent";
import { createFaux } from "@tern/ai/testing";
import type { AgentConfig, AgentSetup } from "@tern/server";
import { BUILTIN_TOOL_NAMES, PermissionPolicy } from "@tern/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acpRuntimeOptions } from "../src/acp/session.js";
import { loadHome } from "../src/config/home.js";
import { approveProjectHooks, loadHookSettings } from "../src/config/hooks.js";
import { createRegistry } from "../src/config/model.js";
import { approveProjectRules } from "../src/config/project-rules.js";
import { resolveServeSettings } from "../src/config/serve-settings.js";
import { type AgentSettings, resolveAgentSettings } from "../src/config/settings.js";
import { approveProjectSkills } from "../src/config/skills.js";
import { openStore } from "../src/config/store.js";
import { servedWorkspaces } from "../src/config/workspace-settings.js";
import { openRuntime, type Runtime } from "../src/runtime/runtime.js";
import { servedAgent, servedEngineOptions } from "../src/runtime/served.js";
import { tempDir } from "./support/tern.js";

/** A registry that remembers what was registered on it, by event and name. */
class RecordingHooks extends HookRegistry {
  readonly names: string[] = [];
  override register(hook: Hook): () => void {
    this.names.push(`${hook.event}:${hook.name ?? "?"}`);
    return super.register(hook);
  }
}

/** What a host's agent came out with, in a form the rows can compare. */
interface Built {
  allow: string[];
  deny: string[];
  mode: string;
  /** The hooks the coding agent registered (the permission hook apart: a server adds its own). */
  hooks: string[];
  /** A permission policy guards the tools (installed by the factory, or built by the server). */
  guarded: boolean;
  tools: string[];
  /** The agent's policies: its own, then the ReAct set its `react` options make. */
  policies: string[];
  react: AgentOptions["react"];
  systemPrompt: string;
}

const model = createFaux({ id: "faux-coder", replies: [] }).model;
const warnings: string[] = [];
const warn = (message: string) => warnings.push(message);
let home: string;
let work: string;
let env: NodeJS.ProcessEnv;
let settings: AgentSettings;
const opened: Runtime[] = [];

beforeAll(async () => {
  home = tempDir();
  work = tempDir();
  env = { TERN_HOME: home };
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      deny: ["bash(rm:*)"],
      hooks: { PreToolUse: [{ matcher: "bash", command: "echo user-hook" }] },
    }),
  );
  projectSettings(work, {
    allow: ["bash(echo:*)"],
    deny: ["read(secret.txt)"],
    hooks: { PostToolUse: [{ matcher: "write", command: "echo project-hook" }] },
  });
  writeFileSync(join(work, "AGENTS.md"), "Always run the tests with npm test.\n");
  skill(join(work, ".tern", "skills"), "release", "Bash(git tag:*)");
  skill(join(home, "skills"), "notes", "Bash(make:*)");
  settings = resolveAgentSettings({}, { env, cwd: work }, loadHome({ env, cwd: work }));
  // The user reviewed and approved the project's allow rules and hooks (tern hooks approve).
  await approveProjectRules(work, home);
  await approveProjectSkills(work, home);
  const hooks = await loadHookSettings(home, settings.config.config.hooks, settings.config.path, work);
  await approveProjectHooks(home, work, hooks.project!);
});

/** Writes `<dir>/<name>/SKILL.md` with the given allowed-tools. */
function skill(dir: string, name: string, allowedTools: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(
    join(dir, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: How to do ${name}.\nallowed-tools: ${allowedTools}\n---\nThe ${name} steps.\n`,
  );
}

/** Writes the project's `.tern/config.json` in `dir`. */
function projectSettings(dir: string, content: object): void {
  mkdirSync(join(dir, ".tern"), { recursive: true });
  writeFileSync(join(dir, ".tern", "config.json"), JSON.stringify(content));
}

afterAll(async () => {
  for (const runtime of opened.splice(0)) await runtime.close();
});

/** A CLI host: openRuntime as the command calls it. */
async function viaRuntime(
  options: Partial<Parameters<typeof openRuntime>[0]> & { settings?: AgentSettings } = {},
): Promise<Built> {
  const hooks = new RecordingHooks();
  const runtime = await openRuntime({ settings, env, warn, model, hooks, ...options });
  opened.push(runtime);
  const { coding } = runtime;
  return {
    ...runtime.permissions.rules,
    mode: runtime.permissions.mode,
    hooks: hooks.names.filter((name) => name !== "PreToolUse:permissions"),
    guarded: hooks.names.includes("PreToolUse:permissions"),
    tools: runtime.tools.map((tool) => tool.name),
    policies: policyNames(coding.options),
    react: coding.options.react,
    systemPrompt: coding.systemPrompt,
  };
}

/** A server host: its configureAgent given what ServerSession gives it; the policy built as there. */
async function viaServer(configure: (setup: AgentSetup) => AgentConfig, cwd = work): Promise<Built> {
  const store = await openStore(undefined, home);
  const session = await store.create({ cwd });
  const hooks = new RecordingHooks();
  try {
    const config = configure({ sessionId: session.id, session, cwd, model, hooks });
    const policy = config.permissions
      ? new PermissionPolicy({ ...config.permissions, tools: config.tools ?? [] })
      : undefined;
    return {
      ...(policy?.rules ?? { allow: [], deny: [] }),
      mode: policy?.mode ?? "none",
      hooks: hooks.names,
      guarded: policy !== undefined,
      tools: (config.tools ?? []).map((tool) => tool.name),
      policies: policyNames(config),
      react: config.react,
      systemPrompt: config.systemPrompt ?? "",
    };
  } finally {
    await session.close();
    await store.close?.();
  }
}

function policyNames(options: Pick<AgentOptions, "policies" | "react">): string[] {
  return [...(options.policies ?? []), ...reactPolicies(options.react)].map((policy) => policy.name);
}

const serveSettings = () => resolveServeSettings({}, { env, cwd: work });

const HOSTS: [string, () => Promise<Built>][] = [
  ["run", () => viaRuntime({ ask: async () => ({ allow: false, reason: "no" }) })],
  ["chat", () => viaRuntime()],
  [
    "sessions resume",
    async () => {
      const first = await openRuntime({ settings, env, warn, model });
      await first.close();
      return viaRuntime({ settings: { ...settings, sessionId: first.session.id } });
    },
  ],
  ["mcp serve", () => viaRuntime({ settings: { ...settings, cwd: work, explicitCwd: true } })],
  [
    "acp",
    // An editor that reads, writes and runs commands itself: the tools are the editor's, the rest the same.
    () => {
      const { client } = acpAgentApp().connect(acpClientApp());
      const capabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
      return viaRuntime(
        acpRuntimeOptions(
          { ...settings, cwd: work, explicitCwd: true },
          { client, capabilities, sessionId: () => "acp", env, warn, mcpServers: [] },
        ),
      );
    },
  ],
  [
    "serve",
    async () => {
      const registry = createRegistry(settings, warn);
      const engine = await servedEngineOptions(settings, serveSettings(), { registry, model, env, warn });
      return viaServer(engine.configureAgent!);
    },
  ],
  [
    "worker",
    async () => {
      const registry = createRegistry(settings, warn);
      const engine = await servedEngineOptions(settings, serveSettings(), { registry, model, env, warn });
      return viaServer(engine.configureAgent!);
    },
  ],
  [
    "demo --web",
    async () => viaServer(servedAgent(settings, await servedWorkspaces(settings, warn), { env, warn })),
  ],
];

describe("one coding agent for every host", () => {
  const built = new Map<string, Built>();

  beforeAll(async () => {
    for (const [host, build] of HOSTS) built.set(host, await build());
  });

  it.each(HOSTS.map(([host]) => host))(
    "%s: the user's and the project's rules, hooks, tools, policies",
    (host) => {
      const agent = built.get(host)!;
      expect(agent.allow).toEqual(["bash(echo:*)", "bash(git tag:*)", "bash(make:*)"]);
      expect(agent.deny).toEqual(["bash(rm:*)", "read(secret.txt)", "write(.tern/**)", "edit(.tern/**)"]);
      expect(agent.mode).toBe("ask");
      expect(agent.guarded).toBe(true);
      expect(agent.hooks).toEqual([
        "PreToolUse:echo user-hook",
        "PostToolUse:echo project-hook",
        "PreToolUse:checkpoints",
        "PostToolUse:checkpoints",
        "PostToolUseFailure:checkpoints",
      ]);
      expect(agent.tools).toEqual([...BUILTIN_TOOL_NAMES, "todo_write", "web_fetch", "task", "skill"]);
      expect(agent.policies.slice(0, 2)).toEqual([contextWindowCheck().name, contextGuard().name]);
      expect(agent.policies).toContain("completion_check");
      expect(agent.react).toMatchObject({ toolMode: "auto", maxIterations: 50 });
      expect(agent.systemPrompt).toContain("Always run the tests with npm test.");
      // Skills: names and descriptions in the prompt, their bodies only behind the skill tool.
      expect(agent.systemPrompt).toContain("- release: How to do release.\n- notes: How to do notes.");
      expect(agent.systemPrompt).not.toContain("steps.");
    },
  );

  it("and every host's agent is the same as run's", () => {
    const run = built.get("run")!;
    for (const [host] of HOSTS) expect({ host, ...built.get(host)! }).toEqual({ host, ...run });
  });
});

describe("a served session in another root", () => {
  it("gets the user's hooks and its own project's deny rules, not its unapproved allow rules", async () => {
    const other = tempDir();
    projectSettings(other, {
      allow: ["bash"],
      deny: ["read(.env)"],
      hooks: { PreToolUse: [{ command: "echo other-project" }] },
    });
    const workspaces = await servedWorkspaces(settings, warn);
    skill(join(other, ".claude", "skills"), "grant", "Bash");
    const agent = await viaServer(servedAgent(settings, workspaces, { env, warn }), other);
    expect(agent.allow).toEqual(["bash(make:*)"]);
    expect(agent.deny).toEqual(["bash(rm:*)", "read(.env)", "write(.tern/**)", "edit(.tern/**)"]);
    expect(agent.hooks.filter((name) => !name.endsWith(":checkpoints"))).toEqual([
      "PreToolUse:echo user-hook",
    ]);
    expect(warnings.join("\n")).toMatch(/allow rules not in effect in this server.*: bash$/m);
    expect(warnings.join("\n")).toMatch(
      /skill "grant" .*: its allowed-tools \(bash\) are not in effect in this server .*; those calls are asked as usual/,
    );
  });
});
