// Named sub-agent profiles: a Markdown file whose YAML front matter (parsed by `yaml`) names the
// agent's description, model and tools, and whose body is its system prompt. Parsing never throws:
// a bad profile comes back as a problem the host shows as a warning.

import { z } from "zod";
import { parseFrontMatter } from "../front-matter.js";

export interface AgentProfile {
  /** From the file name (`reviewer.md` → "reviewer"); what the model passes as `agent`. */
  name: string;
  description: string;
  /** A model id or alias for the host to resolve; absent = the parent's model. */
  model?: string;
  /** Tool names the sub-agent may use, a subset of the parent's; absent = all of the parent's. */
  tools?: string[];
  /** Turns the sub-agent may take; absent = the task tool's default. */
  maxTurns?: number;
  systemPrompt: string;
  /** Where it was read from, for messages. */
  source?: string;
}

export type ProfileParse = { ok: true; profile: AgentProfile } | { ok: false; error: string };

/** Profile names the model can type: letters, digits, `-` and `_`. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const frontMatter = z
  .object({
    description: z.string().trim().min(1, "description is empty"),
    model: z.string().trim().min(1).optional(),
    tools: z
      .union([
        z.array(z.string().trim().min(1)),
        z.string().transform((s) =>
          s
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean),
        ),
      ])
      .optional(),
    maxTurns: z.number().int().min(1).max(1000).optional(),
  })
  .strict();

export function parseAgentProfile(name: string, text: string, source?: string): ProfileParse {
  const where = source ?? name;
  if (!NAME.test(name))
    return { ok: false, error: `${where}: the name "${name}" must be letters, digits, "-" or "_"` };
  const parts = parseFrontMatter(text);
  if (!parts.ok) return { ok: false, error: `${where}: ${parts.error}` };
  const parsed = frontMatter.safeParse(parts.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".") || "front matter";
    return { ok: false, error: `${where}: ${field}: ${issue.message}` };
  }
  if (parts.body === "") return { ok: false, error: `${where}: the body (the system prompt) is empty` };
  const { description, model, tools, maxTurns } = parsed.data;
  const profile: AgentProfile = { name, description, systemPrompt: parts.body };
  if (model !== undefined) profile.model = model;
  if (tools !== undefined) profile.tools = tools;
  if (maxTurns !== undefined) profile.maxTurns = maxTurns;
  if (source !== undefined) profile.source = source;
  return { ok: true, profile };
}
