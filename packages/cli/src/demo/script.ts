// The demo's scripted model. Each reply is a function of what the model was really sent: the
// files it reads are the ones glob found, the test command is the one package.json declares, the
// edit's oldText is the line the real read returned, and the answer quotes the real test output.
// When reality differs from the script's expectations (the tests already pass, the edit fails),
// the replies say so instead of pretending. Messages the runtime's policies inject (a
// self-reflection, the completion checklist) are read and answered like a model would.
import {
  type FauxReply,
  type FauxRequest,
  type FauxStep,
  fauxText,
  fauxToolCall,
  type Message,
  type ToolResultMessage,
} from "@tern/ai";

export const DEMO_PROMPT =
  "The tests of this project fail. Find the bug, fix it, and make sure the tests pass.";

/** What the script observed, for the demo's verdict. */
export interface DemoState {
  testsFailedFirst?: boolean;
  denied?: boolean;
  edited?: boolean;
  testsPassedAtEnd?: boolean;
}

interface SeenResult {
  name: string;
  args: Record<string, unknown>;
  text: string;
  isError: boolean;
}

interface Memory {
  files: Map<string, string>;
  testCommand: string;
  buggy?: { path: string; line: string; fixed: string };
  finalRun?: string;
}

type Phase = (request: FauxRequest) => FauxReply;

function textOf(message: Message | undefined): string {
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The tool results of the model's last turn (skipping messages injected after them), with their calls. */
function latestResults(request: FauxRequest): SeenResult[] {
  const messages = request.context.messages;
  const calls = new Map<string, Record<string, unknown>>();
  for (const message of messages)
    if (message.role === "assistant")
      for (const part of message.content) if (part.type === "toolCall") calls.set(part.id, part.arguments);
  let i = messages.length - 1;
  while (i >= 0 && messages[i]!.role === "user") i--;
  const out: SeenResult[] = [];
  for (; i >= 0 && messages[i]!.role === "toolResult"; i--) {
    const result = messages[i] as ToolResultMessage;
    out.unshift({
      name: result.toolName,
      args: calls.get(result.toolCallId) ?? {},
      text: textOf(result),
      isError: result.isError,
    });
  }
  return out;
}

/** Injected messages after the last tool results: "[SELF-REFLECTION] …", "[COMPLETION CHECK] …". */
function injected(request: FauxRequest, tag: string): boolean {
  const messages = request.context.messages;
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "user"; i--)
    if (textOf(messages[i]).startsWith(tag)) return true;
  return false;
}

/** A read result without its line numbers ("     3\tcode" -> "code"). */
function fileText(readOutput: string): string {
  return readOutput
    .split("\n")
    .filter((line) => /^\s*\d+\t/.test(line))
    .map((line) => line.replace(/^\s*\d+\t/, ""))
    .join("\n");
}

function testCounts(output: string): { pass?: number; fail?: number } {
  const pass = /^(?:#|ℹ) pass (\d+)/m.exec(output)?.[1];
  const fail = /^(?:#|ℹ) fail (\d+)/m.exec(output)?.[1];
  return { ...(pass ? { pass: Number(pass) } : {}), ...(fail ? { fail: Number(fail) } : {}) };
}

function failures(output: string): string[] {
  const names = [...output.matchAll(/^not ok \d+ - (.+)$/gm)].map((match) => match[1]!);
  const pairs = [...output.matchAll(/^\s+expected: (.+)\n\s+actual: (.+)$/gm)].map(
    (m) => `expected ${m[1]}, got ${m[2]}`,
  );
  return names.map((name, index) => (pairs[index] ? `"${name}" (${pairs[index]})` : `"${name}"`));
}

const exitCode = (output: string) => Number(/Exit code: (\d+)\s*$/.exec(output)?.[1] ?? Number.NaN);

function phases(state: DemoState, memory: Memory): Phase[] {
  return [
    // 1. Look around: which files, and how the tests run. Two calls in one turn run in parallel.
    () => ({
      content: [
        fauxText("I'll start by looking at the project: its JavaScript files and how its tests are run."),
        fauxToolCall("glob", { pattern: "**/*.js" }),
        fauxToolCall("read", { path: "package.json" }),
      ],
    }),
    // 2. Read every file glob found, in parallel; remember the test script.
    (request) => {
      const results = latestResults(request);
      const files = (results.find((r) => r.name === "glob")?.text ?? "")
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line.endsWith(".js"));
      try {
        const pkg = JSON.parse(fileText(results.find((r) => r.name === "read")?.text ?? "")) as {
          scripts?: { test?: string };
        };
        if (pkg.scripts?.test) memory.testCommand = pkg.scripts.test;
      } catch {}
      if (files.length === 0)
        return "I could not find any JavaScript files in this project, so there is nothing to fix here.";
      return {
        content: [
          fauxText(
            `Found ${files.join(" and ")}; the tests run with \`${memory.testCommand}\`. Reading the code and the tests.`,
          ),
          ...files.map((path) => fauxToolCall("read", { path })),
        ],
      };
    },
    // 3. Run the tests to see the failure for real.
    (request) => {
      for (const result of latestResults(request))
        if (result.name === "read" && !result.isError)
          memory.files.set(String(result.args.path), fileText(result.text));
      return {
        content: [
          fauxText("Now let me run the tests and see what fails."),
          fauxToolCall("bash", { command: memory.testCommand }),
        ],
      };
    },
    // 4. The over-eager move a model might make: a clean reinstall. The permission policy denies it.
    (request) => {
      const output = latestResults(request).find((r) => r.name === "bash")?.text ?? "";
      state.testsFailedFirst = exitCode(output) !== 0;
      if (!state.testsFailedFirst)
        return `The tests already pass (${testCounts(output).pass ?? "all"} passed), so there is no bug to fix.`;
      const failed = failures(output);
      return {
        content: [
          fauxText(
            `${failed.length > 0 ? `Failing: ${failed.join(", ")}.` : "The tests fail."} Before digging in, let me wipe node_modules and reinstall, in case a stale dependency is to blame.`,
          ),
          fauxToolCall("bash", { command: "rm -rf node_modules && npm install" }),
        ],
      };
    },
    // 5. Denied: fine. Find the bug in the code that was really read, and edit exactly that line.
    (request) => {
      const denial = latestResults(request).find((r) => r.name === "bash");
      state.denied = denial?.isError === true && /was denied/.test(denial.text);
      const onCourse = injected(request, "[SELF-REFLECTION]")
        ? "Still on course, and not repeating myself: the direct next step is the code itself. "
        : "";
      const opening = state.denied
        ? "The permission policy denied that, and rightly so: this project has no dependencies to reinstall."
        : "That ran, though it was not needed.";
      for (const [path, text] of memory.files) {
        if (path.includes("test")) continue;
        const line = text.split("\n").find((l) => /for \(let i = 1; i < \w+\.length; i\+\+\)/.test(l));
        if (line) {
          memory.buggy = { path, line, fixed: line.replace("let i = 1", "let i = 0") };
          break;
        }
      }
      if (!memory.buggy)
        return `${opening} ${onCourse}I read the code but could not find the loop I expected to be wrong, so I am stopping here rather than guessing.`;
      return {
        content: [
          fauxText(
            `${opening} ${onCourse}The failures all point at \`sum()\`: in ${memory.buggy.path} its loop starts at index 1, so the first value is never added (and \`mean()\` inherits the error). Fixing the loop to start at 0.`,
          ),
          fauxToolCall("edit", {
            path: memory.buggy.path,
            edits: [{ oldText: memory.buggy.line, newText: memory.buggy.fixed }],
          }),
        ],
      };
    },
    // 6. Rerun the tests.
    (request) => {
      const edit = latestResults(request).find((r) => r.name === "edit");
      state.edited = edit !== undefined && !edit.isError;
      if (!state.edited)
        return `The edit failed (${edit?.text.split("\n")[0] ?? "no result"}), so the bug is still there.`;
      return {
        content: [
          fauxText("Edited. Running the tests again."),
          fauxToolCall("bash", { command: memory.testCommand }),
        ],
      };
    },
    // 7. A short answer from the real test output (the completion checklist may ask for more).
    (request) => {
      const output = latestResults(request).find((r) => r.name === "bash")?.text ?? "";
      memory.finalRun = output;
      const counts = testCounts(output);
      state.testsPassedAtEnd = exitCode(output) === 0;
      if (!state.testsPassedAtEnd)
        return `I changed the loop in ${memory.buggy?.path}, but the tests still fail (${counts.fail ?? "some"} failing), so the fix is not complete:\n\n${failures(output).join("\n")}`;
      return `Fixed: \`sum()\` skipped the first value because its loop started at index 1. \`${memory.testCommand}\` now passes: ${counts.pass ?? "all"} passed, ${counts.fail ?? 0} failed.`;
    },
  ];
}

/** The full answer, each claim taken from a tool result: what the completion checklist asks for. */
function checkedAnswer(memory: Memory): string {
  const counts = testCounts(memory.finalRun ?? "");
  return [
    "Checked against the tool results; everything below comes from them.",
    "",
    `**The bug:** \`sum()\` in \`${memory.buggy?.path}\` started its loop at index 1, so it skipped the first value; \`mean()\` divides that sum, so it was wrong too.`,
    "",
    `**The fix:** one line, \`${memory.buggy?.line.trim()}\` → \`${memory.buggy?.fixed.trim()}\`.`,
    "",
    `**Verified:** \`${memory.testCommand}\` passes: ${counts.pass ?? "all"} passed, ${counts.fail ?? 0} failed.`,
    "",
    "(A reinstall I tried along the way was denied by the permission policy; it was not needed.)",
  ].join("\n");
}

/** One scripted reply per model call; the same dispatcher serves every call. */
export function demoReplies(state: DemoState, calls = 16): FauxStep[] {
  const memory: Memory = { files: new Map(), testCommand: "node --test" };
  const script = phases(state, memory);
  let next = 0;
  let lastAnswer = "";
  const step = (request: FauxRequest): FauxReply => {
    if (injected(request, "[COMPLETION CHECK]"))
      return state.testsPassedAtEnd ? checkedAnswer(memory) : lastAnswer || "I have nothing more to add.";
    const phase = script[next++];
    const reply = phase ? phase(request) : lastAnswer || "Done.";
    if (typeof reply === "string") lastAnswer = reply;
    return reply;
  };
  return Array.from({ length: calls }, () => step);
}
