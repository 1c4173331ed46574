// The CLIs of `npm run bench clis`: the npm package (exact version) each is installed from, the
// wire format it speaks, and how it is pointed at the loopback server, driven non-interactively
// with its tools auto-approved, and kept off the network (telemetry, update checks, model lists).
// Each gets its own HOME for the whole bench (its config files rewritten before every run, as
// the server's port changes) and a fresh work directory per run.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Wire } from "./wire.js";

export interface Invocation {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface CliSpec {
  id: string;
  /** npm package and exact version, installed into bench/.peers/<id>/; none for tern itself. */
  npm?: { name: string; version: string; bin: string };
  wire: Wire;
  model: string;
  /** Offline and telemetry switches this CLI is given, as shown in the README. */
  quiet: string;
  invoke(o: { bin: string; home: string; port: number; prompt: string }): Invocation;
}

const TERN_JS = fileURLToPath(new URL("../../../packages/cli/dist/tern.js", import.meta.url));

export const homeEnv = (home: string) => ({
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  XDG_DATA_HOME: join(home, ".local/share"),
  XDG_CACHE_HOME: join(home, ".cache"),
  XDG_STATE_HOME: join(home, ".local/state"),
  NO_COLOR: "1",
  CI: "1",
});

const write = (file: string, text: string) => {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
};

/** tern, with its completion check or with `--policy completion-check=off`. */
function tern(id: string, completionCheck: boolean): CliSpec {
  return {
    id,
    wire: "chat",
    model: "bench-model",
    quiet: "none needed (no telemetry, no update check)",
    invoke: ({ home, port, prompt }) => ({
      command: process.execPath,
      args: [
        TERN_JS,
        "run",
        "--provider",
        "bench",
        "--base-url",
        `http://127.0.0.1:${port}/v1`,
        "-m",
        "bench-model",
        "--api-key",
        "bench",
        "--mode",
        "bypass",
        "--no-mcp",
        ...(completionCheck ? [] : ["--policy", "completion-check=off"]),
        prompt,
      ],
      env: { ...homeEnv(home), TERN_HOME: join(home, ".tern") },
    }),
  };
}

export function cliSpecs(): CliSpec[] {
  return [
    tern("tern", true),
    tern("tern (completion check off)", false),
    {
      id: "pi",
      npm: { name: "@mariozechner/pi-coding-agent", version: "0.73.1", bin: "pi" },
      wire: "chat",
      model: "bench-model",
      quiet: "PI_OFFLINE=1, PI_TELEMETRY=0",
      invoke: ({ bin, home, port, prompt }) => {
        const dir = join(home, ".pi/agent");
        write(
          join(dir, "models.json"),
          JSON.stringify({
            providers: {
              bench: {
                baseUrl: `http://127.0.0.1:${port}/v1`,
                api: "openai-completions",
                apiKey: "bench",
                compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
                models: [{ id: "bench-model" }],
              },
            },
          }),
        );
        return {
          command: bin,
          args: ["-p", "--provider", "bench", "--model", "bench-model", "--no-session", prompt],
          env: { ...homeEnv(home), PI_CODING_AGENT_DIR: dir, PI_OFFLINE: "1", PI_TELEMETRY: "0" },
        };
      },
    },
    {
      id: "codex",
      npm: { name: "@openai/codex", version: "0.169.0", bin: "codex" },
      wire: "responses",
      model: "bench-model",
      quiet: "CODEX_HOME of its own, analytics.enabled=false, check_for_update_on_startup=false",
      invoke: ({ bin, home, port, prompt }) => {
        mkdirSync(join(home, ".codex"), { recursive: true });
        return {
          command: bin,
          args: [
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "-m",
            "bench-model",
            "-c",
            'model_provider="bench"',
            "-c",
            'model_providers.bench.name="bench"',
            "-c",
            `model_providers.bench.base_url="http://127.0.0.1:${port}/v1"`,
            "-c",
            'model_providers.bench.wire_api="responses"',
            "-c",
            'model_providers.bench.env_key="BENCH_API_KEY"',
            "-c",
            "analytics.enabled=false",
            "-c",
            "check_for_update_on_startup=false",
            prompt,
          ],
          env: { ...homeEnv(home), CODEX_HOME: join(home, ".codex"), BENCH_API_KEY: "bench" },
        };
      },
    },
    {
      id: "claude",
      npm: { name: "@anthropic-ai/claude-code", version: "2.1.328", bin: "claude" },
      wire: "anthropic",
      model: "claude-sonnet-4-5",
      quiet:
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, DISABLE_TELEMETRY=1, DISABLE_ERROR_REPORTING=1, DISABLE_AUTOUPDATER=1",
      invoke: ({ bin, home, port, prompt }) => ({
        command: bin,
        args: ["-p", "--permission-mode", "bypassPermissions", "--model", "claude-sonnet-4-5", prompt],
        env: {
          ...homeEnv(home),
          CLAUDE_CONFIG_DIR: join(home, ".claude"),
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
          ANTHROPIC_API_KEY: "bench",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_TELEMETRY: "1",
          DISABLE_ERROR_REPORTING: "1",
          DISABLE_AUTOUPDATER: "1",
          // bypassPermissions refuses to run as root outside a sandbox; the bench runs in one.
          IS_SANDBOX: "1",
        },
      }),
    },
    {
      id: "opencode",
      npm: { name: "opencode-ai", version: "1.18.33", bin: "opencode" },
      wire: "chat",
      model: "bench-model",
      quiet:
        "OPENCODE_DISABLE_MODELS_FETCH=1, OPENCODE_DISABLE_AUTOUPDATE=1, OPENCODE_DISABLE_SHARE=1, OPENCODE_DISABLE_LSP_DOWNLOAD=1, OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
      invoke: ({ bin, home, port, prompt }) => ({
        command: bin,
        args: ["run", "-m", "bench/bench-model", prompt],
        env: {
          ...homeEnv(home),
          OPENCODE_CONFIG_CONTENT: JSON.stringify({
            provider: {
              bench: {
                npm: "@ai-sdk/openai-compatible",
                name: "bench",
                options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "bench" },
                models: { "bench-model": { name: "bench-model", tool_call: true } },
              },
            },
            model: "bench/bench-model",
            permission: { "*": "allow" },
            share: "disabled",
            autoupdate: false,
          }),
          OPENCODE_DISABLE_MODELS_FETCH: "1",
          OPENCODE_DISABLE_AUTOUPDATE: "1",
          OPENCODE_DISABLE_SHARE: "1",
          OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
          OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
        },
      }),
    },
    {
      id: "gemini",
      npm: { name: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
      wire: "gemini",
      model: "gemini-2.5-flash",
      quiet: "settings.json: telemetry off, usage statistics off, auto-update off",
      invoke: ({ bin, home, port, prompt }) => {
        write(
          join(home, ".gemini/settings.json"),
          JSON.stringify({
            security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
            telemetry: { enabled: false },
            privacy: { usageStatisticsEnabled: false },
            general: { disableAutoUpdate: true, disableUpdateNag: true },
          }),
        );
        return {
          command: bin,
          args: ["-p", prompt, "--yolo", "-m", "gemini-2.5-flash"],
          env: {
            ...homeEnv(home),
            GEMINI_API_KEY: "bench",
            GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
          },
        };
      },
    },
  ];
}
