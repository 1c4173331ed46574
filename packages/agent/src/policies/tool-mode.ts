// Which way a model calls tools: natively (the provider's tool-call API) or in JSON mode (the
// catalog in the system prompt, one JSON object per reply; see json-mode.ts).

import type { Model } from "@tern/ai";

export type ToolMode = "native" | "json" | "auto";

export interface ToolModeOptions {
  /** Default "auto": native only when `useNativeTools` and the model advertises `abilities.toolCall`. */
  toolMode?: ToolMode;
  /** Default true. False makes "auto" use JSON mode even for models with native tool calling. */
  useNativeTools?: boolean;
}

export function resolveToolMode(model: Model, options: ToolModeOptions = {}): "native" | "json" {
  const mode = options.toolMode ?? "auto";
  if (mode !== "auto") return mode;
  return options.useNativeTools !== false && model.abilities.toolCall ? "native" : "json";
}
