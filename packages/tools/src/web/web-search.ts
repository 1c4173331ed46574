// The web_search tool and its pluggable backends. Off unless configured: the tool exists only when
// the host gives it a backend. `httpSearchBackend` speaks to a SearXNG instance (`format=json`) or
// the Brave Search API; other services plug in by implementing `SearchBackend`.

import type { AgentToolResult } from "@tern/agent";
import { z } from "zod";
import { toolError } from "../tools/result.js";
import type { BuiltinTool } from "../types.js";

export interface SearchHit {
  title: string;
  url: string;
  snippet?: string;
}

/** A search service. Throw (or reject) with a readable message on failure; the tool reports it. */
export interface SearchBackend {
  /** Shown in results ("searxng", "brave", ...). */
  name: string;
  search(query: string, options: { count: number; signal: AbortSignal }): Promise<SearchHit[]>;
}

/**
 * A search endpoint configured by the user (settings `webSearch`), e.g.
 * `{ "kind": "searxng", "url": "http://localhost:8888" }` or
 * `{ "kind": "brave", "url": "https://api.search.brave.com/res/v1/web/search", "apiKeyEnv": "BRAVE_API_KEY" }`.
 * The URL is the user's choice, so it is not subject to web_fetch's address guard.
 */
export interface HttpSearchConfig {
  kind: "searxng" | "brave";
  url: string;
  /** Brave's subscription token (sent as X-Subscription-Token). */
  apiKey?: string;
  timeoutMs?: number;
}

export const WEB_SEARCH_DEFAULTS = { count: 5, maxCount: 20, timeoutMs: 15_000 } as const;

const searxngReply = z.object({
  results: z.array(
    z.object({ title: z.string().default(""), url: z.string(), content: z.string().optional() }),
  ),
});
const braveReply = z.object({
  web: z
    .object({
      results: z.array(
        z.object({ title: z.string().default(""), url: z.string(), description: z.string().optional() }),
      ),
    })
    .optional(),
});

export function httpSearchBackend(config: HttpSearchConfig): SearchBackend {
  const timeoutMs = config.timeoutMs ?? WEB_SEARCH_DEFAULTS.timeoutMs;
  return {
    name: config.kind,
    async search(query, { count, signal }) {
      const url = new URL(config.kind === "searxng" ? new URL("search", withSlash(config.url)) : config.url);
      url.searchParams.set("q", query);
      if (config.kind === "searxng") url.searchParams.set("format", "json");
      else url.searchParams.set("count", String(count));
      const headers: Record<string, string> = { accept: "application/json" };
      if (config.apiKey) headers["x-subscription-token"] = config.apiKey;
      const response = await fetch(url, {
        headers,
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      if (!response.ok) throw new Error(`the search service answered HTTP ${response.status}`);
      const json: unknown = await response.json().catch(() => {
        throw new Error("the search service did not answer JSON");
      });
      if (config.kind === "searxng") {
        const parsed = searxngReply.safeParse(json);
        if (!parsed.success) throw new Error("the search service's answer has no results list");
        return parsed.data.results
          .slice(0, count)
          .map((r) => ({ title: r.title, url: r.url, ...(r.content ? { snippet: r.content } : {}) }));
      }
      const parsed = braveReply.safeParse(json);
      if (!parsed.success) throw new Error("the search service's answer has no web results");
      return (parsed.data.web?.results ?? [])
        .slice(0, count)
        .map((r) => ({ title: r.title, url: r.url, ...(r.description ? { snippet: r.description } : {}) }));
    },
  };
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

export interface WebSearchDetails {
  query: string;
  backend: string;
  hits: SearchHit[];
}

const parameters = z.object({
  query: z.string().min(1).describe("What to search the web for."),
  count: z
    .number()
    .int()
    .min(1)
    .max(WEB_SEARCH_DEFAULTS.maxCount)
    .optional()
    .describe(`How many results. Default ${WEB_SEARCH_DEFAULTS.count}.`),
});

export function webSearchTool(
  backend: SearchBackend,
): BuiltinTool<z.infer<typeof parameters>, WebSearchDetails> {
  return {
    name: "web_search",
    label: "Search the web",
    // The query leaves the machine: asks like a command unless a rule allows it.
    kind: "exec",
    description:
      "Search the web. Returns titles, URLs and snippets; use web_fetch on a URL to read the page.",
    parameters,
    async execute(
      { query, count = WEB_SEARCH_DEFAULTS.count },
      { signal },
    ): Promise<AgentToolResult<WebSearchDetails>> {
      let hits: SearchHit[];
      try {
        hits = await backend.search(query, { count, signal });
      } catch (error) {
        return toolError(
          `web search (${backend.name}) failed: ${(error as Error)?.message ?? String(error)}`,
        );
      }
      const details = { query, backend: backend.name, hits };
      if (hits.length === 0) return { content: `No results for "${query}".`, details };
      const lines = hits.map(
        (hit, i) => `${i + 1}. ${hit.title}\n   ${hit.url}${hit.snippet ? `\n   ${hit.snippet}` : ""}`,
      );
      return { content: lines.join("\n"), details };
    },
  };
}
