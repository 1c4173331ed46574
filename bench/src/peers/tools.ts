// The tools every runtime registers, as plain JSON Schema so each runtime sends the same schema
// bytes (no zod/typebox conversion differences in the prompt-token figures). Every property is
// required and `additionalProperties` is false, so the schemas are valid for strict mode too.
// A tool's result is a pure function of its name and arguments: the server recomputes it to
// check that each runtime ran the tool with the arguments it was sent and returned the result.

export interface JsonProperty {
  type: "string" | "integer" | "number" | "boolean" | "array";
  description: string;
  items?: { type: "string" };
}

export interface ToolSchema {
  type: "object";
  properties: Record<string, JsonProperty>;
  required: string[];
  additionalProperties: false;
}

export interface ToolDef {
  name: string;
  description: string;
  parameters: ToolSchema;
  execute(args: Record<string, unknown>): string;
}

/** Canonical JSON (sorted keys) so equal arguments compare equal whatever order a runtime used. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** What tool `name` returns for `args`: deterministic, a few hundred characters like a real tool. */
export function toolResult(name: string, args: Record<string, unknown>): string {
  if (name === SAVE_TOOL.name)
    return `saved ${String(args.text ?? "").length} characters for ${String(args.run)}`;
  if (name === DUMP_TOOL.name) return bigResult(String(args.run));
  const key = canonical(args);
  let hash = 2166136261;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619) >>> 0;
  const lines = [`${name} ${key} -> ok (${hash.toString(16)})`];
  if (name !== "step")
    for (let i = 0; i < 6; i++) lines.push(`  line ${i + 1}: ${(hash + i * 7919).toString(36)} value`);
  return lines.join("\n");
}

function schema(props: Record<string, JsonProperty>): ToolSchema {
  return { type: "object", properties: props, required: Object.keys(props), additionalProperties: false };
}

const str = (description: string): JsonProperty => ({ type: "string", description });
const int = (description: string): JsonProperty => ({ type: "integer", description });
const bool = (description: string): JsonProperty => ({ type: "boolean", description });
const strs = (description: string): JsonProperty => ({
  type: "array",
  items: { type: "string" },
  description,
});

function def(name: string, description: string, props: Record<string, JsonProperty>): ToolDef {
  return { name, description, parameters: schema(props), execute: (args) => toolResult(name, args) };
}

/** Workloads 1, 2 and 4: one tool. */
export const STEP_TOOL = def("step", "Run one numbered step of the procedure and report its outcome.", {
  n: int("The step number, starting at 1"),
  run: str("The run identifier given in the task"),
});

/** Scaling workloads: one large argument, streamed one character per chunk. */
export const SAVE_TOOL = def("save", "Save a text under the run's name.", {
  run: str("The run identifier given in the task"),
  text: str("The text to save"),
});

/** Scaling workloads: a tool whose result is large (BIG_RESULT_CHARS). */
export const DUMP_TOOL = def("dump", "Dump the run's full log.", {
  run: str("The run identifier given in the task"),
});

export const BIG_RESULT_CHARS = 2 * 1024 * 1024;

/** A deterministic 2 MiB log of printable ASCII lines for `run`. */
function bigResult(run: string): string {
  const line = (i: number) =>
    `${run} line ${String(i).padStart(7, "0")}: step completed, value ${(i * 7919) % 100_003}\n`;
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < BIG_RESULT_CHARS; i++) {
    const next = line(i);
    parts.push(next);
    size += next.length;
  }
  return parts.join("").slice(0, BIG_RESULT_CHARS);
}

/** Workload 3: forty tools of a coding assistant, with descriptions of realistic length. */
export const MANY_TOOLS: ToolDef[] = [
  def("read_file", "Read a text file from the workspace and return its contents with line numbers.", {
    path: str("Path relative to the workspace root"),
    offset: int("First line to read, 1-based"),
    limit: int("Most lines to return"),
  }),
  def("write_file", "Create or overwrite a file in the workspace with the given contents.", {
    path: str("Path relative to the workspace root"),
    content: str("The full new contents of the file"),
  }),
  def(
    "edit_file",
    "Replace one exact occurrence of a string in a file. Fails when the string is missing or ambiguous.",
    {
      path: str("Path relative to the workspace root"),
      old_text: str("The exact text to replace"),
      new_text: str("The replacement text"),
    },
  ),
  def("list_directory", "List the entries of a directory, with a trailing slash on subdirectories.", {
    path: str("Directory path relative to the workspace root"),
    recursive: bool("Descend into subdirectories"),
  }),
  def("search_code", "Search file contents with a regular expression and return matching lines with paths.", {
    pattern: str("A regular expression"),
    glob: str("Only files whose path matches this glob"),
    max_results: int("Most matches to return"),
  }),
  def("find_files", "Find files whose path matches a glob pattern, sorted by modification time.", {
    pattern: str("Glob pattern such as src/**/*.ts"),
  }),
  def("run_tests", "Run the project's test suite, or the tests matching a filter, and report failures.", {
    filter: str("Test name or file filter; empty for all tests"),
    timeout_s: int("Seconds before the run is stopped"),
  }),
  def("run_command", "Run a shell command in the workspace and return its exit code, stdout and stderr.", {
    command: str("The command line"),
    timeout_s: int("Seconds before the command is killed"),
  }),
  def("git_status", "Show the working tree status: staged, unstaged and untracked files.", {
    short: bool("Use the short format"),
  }),
  def("git_diff", "Show changes between the working tree and the index or a commit.", {
    ref: str("Commit or branch to compare with; empty for the index"),
    path: str("Limit the diff to this path; empty for all"),
  }),
  def("git_commit", "Stage the given paths and create a commit with the message.", {
    message: str("The commit message"),
    paths: strs("Paths to stage before committing"),
  }),
  def("git_log", "Show recent commits with author, date and subject.", {
    limit: int("Most commits to show"),
    path: str("Only commits touching this path; empty for all"),
  }),
  def("git_checkout", "Switch branches or restore working tree files.", {
    target: str("Branch name, commit, or path to restore"),
    create: bool("Create the branch if it does not exist"),
  }),
  def("web_search", "Search the web and return the top results with titles, URLs and snippets.", {
    query: str("The search query"),
    count: int("Number of results"),
  }),
  def("fetch_url", "Fetch a URL and return its content converted to markdown.", {
    url: str("The URL to fetch"),
    max_chars: int("Truncate the content after this many characters"),
  }),
  def("http_request", "Send an HTTP request and return status, headers and body.", {
    method: str("GET, POST, PUT, PATCH or DELETE"),
    url: str("Request URL"),
    body: str("Request body; empty for none"),
  }),
  def("npm_install", "Install an npm package into the workspace and record it in package.json.", {
    name: str("Package name"),
    version: str("Version or range"),
    dev: bool("Add as a dev dependency"),
  }),
  def("npm_run", "Run a script from package.json.", {
    script: str("Script name"),
    args: strs("Extra arguments"),
  }),
  def("lint", "Run the linter on the given paths and return diagnostics.", {
    paths: strs("Files or directories"),
    fix: bool("Apply safe fixes"),
  }),
  def("format", "Format files with the project's formatter.", {
    paths: strs("Files or directories"),
  }),
  def("typecheck", "Type-check the project and return compiler errors with locations.", {
    project: str("Path to the tsconfig"),
  }),
  def("open_issue", "Open an issue in the project's tracker.", {
    title: str("Issue title"),
    body: str("Issue description in markdown"),
    labels: strs("Labels to apply"),
  }),
  def("comment_issue", "Add a comment to an existing issue or pull request.", {
    number: int("Issue or pull request number"),
    body: str("Comment in markdown"),
  }),
  def("create_pull_request", "Open a pull request from the current branch.", {
    title: str("Pull request title"),
    body: str("Description in markdown"),
    base: str("Branch to merge into"),
  }),
  def("query_database", "Run a read-only SQL query against the development database.", {
    sql: str("A SELECT statement"),
    limit: int("Most rows to return"),
  }),
  def("describe_table", "Describe a database table's columns, types and indexes.", {
    table: str("Table name"),
  }),
  def("send_email", "Send an email from the project's notification address.", {
    to: str("Recipient address"),
    subject: str("Subject line"),
    body: str("Plain-text body"),
  }),
  def("send_slack_message", "Post a message to a Slack channel.", {
    channel: str("Channel name without #"),
    text: str("Message text"),
  }),
  def("create_calendar_event", "Create a calendar event and invite attendees.", {
    title: str("Event title"),
    start: str("Start time, ISO 8601"),
    minutes: int("Duration in minutes"),
    attendees: strs("Email addresses"),
  }),
  def("list_calendar_events", "List calendar events in a time range.", {
    from: str("Range start, ISO 8601"),
    to: str("Range end, ISO 8601"),
  }),
  def("get_weather", "Get the current weather and a three-day forecast for a place.", {
    location: str("City name or coordinates"),
    units: str("metric or imperial"),
  }),
  def("translate_text", "Translate text into another language.", {
    text: str("Text to translate"),
    target_language: str("ISO 639-1 language code"),
  }),
  def("summarize_text", "Summarise a long text into a few sentences.", {
    text: str("The text to summarise"),
    sentences: int("Sentences in the summary"),
  }),
  def("read_pdf", "Extract the text of a PDF file, page by page.", {
    path: str("Path to the PDF"),
    pages: str("Page range such as 1-5; empty for all"),
  }),
  def("image_info", "Return an image's format, dimensions and EXIF data.", {
    path: str("Path to the image"),
  }),
  def("docker_ps", "List running containers with their images, ports and status.", {
    all: bool("Include stopped containers"),
  }),
  def("docker_logs", "Return the recent logs of a container.", {
    container: str("Container name or id"),
    tail: int("Lines from the end"),
  }),
  def("kubectl_get", "Get Kubernetes resources of a kind in a namespace.", {
    kind: str("Resource kind such as pods or deployments"),
    namespace: str("Namespace"),
  }),
  def("set_reminder", "Set a reminder that notifies the user at a given time.", {
    text: str("What to remind about"),
    at: str("When, ISO 8601"),
  }),
  def("calculator", "Evaluate an arithmetic expression exactly.", {
    expression: str("The expression, e.g. (3 + 4) * 2"),
  }),
];
