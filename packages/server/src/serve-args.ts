// `tern serve`'s arguments: [--stdio] [--rpc-port N] [--port N] [--host H] [--token T]
//   [--model ID] [--provider NAME] [--base-url URL] [--cwd DIR] [--home DIR]
//   [--tools none|coding] [--mode ask|accept-edits|read-only|bypass] [--answer-mode direct|synthesize]
//   [--sandbox sandbox|off] [--allow-net]
// Without a listener flag it serves HTTP on 127.0.0.1:7878. A --base-url without --provider means
// a keyless OpenAI-compatible server ("local"). The flags the official Copilot SDK adds when it
// spawns its CLI (--headless, --no-auto-update, ...) are accepted, so the SDK can spawn tern.

import { parseArgs } from "node:util";
import { reactPolicies } from "@tern/agent";
import { ModelRegistry } from "@tern/ai";
import { createTools, type PermissionMode, SANDBOX_PROFILES, type SandboxProfile } from "@tern/tools";
import { registryCatalog } from "./engine/models.js";
import type { AgentConfig, EngineOptions } from "./types.js";

const DEFAULT_PORT = 7878;

export function parseServeArgs(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      stdio: { type: "boolean" },
      "rpc-port": { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      token: { type: "string" },
      model: { type: "string" },
      provider: { type: "string" },
      "base-url": { type: "string" },
      cwd: { type: "string" },
      home: { type: "string" },
      tools: { type: "string" },
      mode: { type: "string" },
      "answer-mode": { type: "string" },
      sandbox: { type: "string" },
      "allow-net": { type: "boolean" },
      // What the official Copilot SDK passes when it starts "the CLI" itself: with --headless,
      // --port is the JSON-RPC port (default: any free one) and the rest is ignored.
      headless: { type: "boolean" },
      "no-auto-update": { type: "boolean" },
      "no-auto-login": { type: "boolean" },
      "log-level": { type: "string" },
      "auth-token-env": { type: "string" },
      "session-idle-timeout": { type: "string" },
      remote: { type: "boolean" },
    },
    strict: true,
  });
  let port = values.port !== undefined ? portNumber(values.port, "--port") : undefined;
  let rpcPort = values["rpc-port"] !== undefined ? portNumber(values["rpc-port"], "--rpc-port") : undefined;
  const stdio = values.stdio === true;
  const headless = values.headless === true;
  if (headless) {
    rpcPort ??= stdio ? port : (port ?? 0);
    port = undefined;
  }
  const sandbox = (values.sandbox ?? "sandbox") as SandboxProfile;
  if (!SANDBOX_PROFILES.includes(sandbox))
    throw new Error(
      `--sandbox must be one of ${SANDBOX_PROFILES.join(", ")} (got ${JSON.stringify(sandbox)})`,
    );
  return {
    stdio,
    rpcPort,
    port: port ?? (rpcPort === undefined && !stdio && !headless ? DEFAULT_PORT : undefined),
    host: values.host,
    token:
      values.token ??
      process.env.TERN_SERVER_TOKEN ??
      (headless && !stdio ? process.env.COPILOT_CONNECTION_TOKEN : undefined),
    model: values.model ?? process.env.TERN_MODEL ?? "gpt-5-mini",
    provider: values.provider ?? (values["base-url"] !== undefined ? "local" : "openai"),
    baseUrl: values["base-url"],
    cwd: values.cwd,
    home: values.home,
    tools: values.tools ?? "none",
    mode: (values.mode ?? "ask") as PermissionMode,
    answerMode: values["answer-mode"] === "synthesize" ? ("synthesize" as const) : ("direct" as const),
    sandbox,
    allowNet: values["allow-net"] === true,
  };
}

export type ServeArgs = ReturnType<typeof parseServeArgs>;

/** The engine options `tern serve` uses for these arguments. */
export function engineOptions(args: ServeArgs): EngineOptions {
  const registry = new ModelRegistry();
  const model = registry.resolve(args.provider, args.model, {
    ...(args.baseUrl !== undefined ? { baseUrl: args.baseUrl, api: "openai-completions" as const } : {}),
  });
  return {
    models: registryCatalog(registry, model),
    ...(args.cwd !== undefined ? { cwd: args.cwd } : {}),
    ...(args.home !== undefined ? { home: args.home } : {}),
    configureAgent: ({ cwd }): AgentConfig => ({
      policies: reactPolicies({ answerMode: args.answerMode }),
      ...(args.tools === "coding"
        ? {
            tools: createTools({
              root: cwd,
              sandbox: {
                profile: args.sandbox,
                allowNet: args.allowNet,
                ...(args.home !== undefined ? { hide: [args.home] } : {}),
              },
            }),
            permissions: { mode: args.mode, root: cwd },
          }
        : {}),
    }),
  };
}

function portNumber(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    throw new Error(`${flag} must be a port number`);
  return value;
}
