// The runtimes measured, by id: how to load each adapter (imported only in its own worker
// process, so no runtime's modules sit in another's memory figures) and which packages to
// report versions of.

import { readFileSync } from "node:fs";
import type { RuntimeAdapter } from "./runtime.js";

export type RuntimeId =
  | "baseline"
  | "tern"
  | "tern-select"
  | "pi"
  | "vercel-ai"
  | "vercel-select"
  | "openai-agents";

export interface RuntimeInfo {
  id: RuntimeId;
  /** Column header in the tables. */
  label: string;
  load(): Promise<RuntimeAdapter>;
  /** node_modules paths of the packages whose versions describe this runtime. */
  packages: string[];
  peer: boolean;
}

export const RUNTIMES: Record<RuntimeId, RuntimeInfo> = {
  baseline: {
    id: "baseline",
    label: "baseline",
    load: async () => (await import("./baseline.js")).adapter,
    packages: [],
    peer: false,
  },
  tern: {
    id: "tern",
    label: "tern",
    load: async () => (await import("./tern.js")).adapter,
    packages: ["@tern/agent", "@tern/ai", "undici", "eventsource-parser"],
    peer: false,
  },
  "tern-select": {
    id: "tern-select",
    label: "tern+select",
    load: async () => (await import("./tern-select.js")).adapter,
    packages: ["@tern/agent", "@tern/ai", "undici", "eventsource-parser"],
    peer: false,
  },
  pi: {
    id: "pi",
    label: "pi",
    load: async () => (await import("./pi.js")).adapter,
    packages: [
      "@mariozechner/pi-agent-core",
      "@mariozechner/pi-ai",
      "@mariozechner/pi-ai/node_modules/openai",
    ],
    peer: true,
  },
  "vercel-ai": {
    id: "vercel-ai",
    label: "vercel-ai",
    load: async () => (await import("./vercel.js")).adapter,
    packages: ["ai", "@ai-sdk/openai-compatible"],
    peer: true,
  },
  "vercel-select": {
    id: "vercel-select",
    label: "vercel+select",
    load: async () => (await import("./vercel-select.js")).adapter,
    packages: ["ai", "@ai-sdk/openai-compatible"],
    // Compared with tern+select only (its own column): with selection it is not a plain peer.
    peer: false,
  },
  "openai-agents": {
    id: "openai-agents",
    label: "openai-agents",
    load: async () => (await import("./openai-agents.js")).adapter,
    packages: ["@openai/agents", "@openai/agents/node_modules/openai"],
    peer: true,
  },
};

/** `name@version` of each package, e.g. "ai@6.0.325"; "?" when it cannot be read. */
export function versionsOf(info: RuntimeInfo): string {
  if (info.packages.length === 0) return "fetch (node)";
  return info.packages
    .map((path) => {
      const name = path.split("/node_modules/").at(-1)!;
      try {
        const file = new URL(`../../../node_modules/${path}/package.json`, import.meta.url);
        return `${name}@${(JSON.parse(readFileSync(file, "utf8")) as { version: string }).version}`;
      } catch {
        return `${name}@?`;
      }
    })
    .join(" ");
}
