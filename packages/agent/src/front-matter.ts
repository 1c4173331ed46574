// YAML front matter: the `---` block that opens a Markdown file (sub-agent profiles, Agent Skills),
// parsed by `yaml`. Never throws: a file without the block, or with YAML that does not parse,
// comes back as a problem in words for the caller's warning. `yaml` (~250 KB) is required at the
// first front matter parsed, not when a command starts: most runs have no profile or skill file.

import { createRequire } from "node:module";

let yaml: typeof import("yaml") | undefined;

/** The `yaml` package, required once at its first use. */
function loadYaml(): typeof import("yaml") {
  yaml ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return yaml;
}

export type FrontMatter = { ok: true; data: unknown; body: string } | { ok: false; error: string };

/** Splits `---\n<yaml>\n---\n<body>` and parses the YAML; the body comes back trimmed. */
export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---")
    return { ok: false, error: "no front matter (the file must start with a --- block)" };
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
  if (end === -1) return { ok: false, error: "the front matter has no closing --- line" };
  let data: unknown;
  try {
    data = loadYaml().parse(lines.slice(1, end).join("\n"));
  } catch (error) {
    return {
      ok: false,
      error: `the front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}`,
    };
  }
  return {
    ok: true,
    data: data ?? {},
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
  };
}
