// `tern demo`: a real agent session, offline. A scripted model (the faux provider, labelled as
// such) drives real tools in a copy of examples/stats-bug: parallel reads, the failing test run
// with bash, a dangerous command denied by the permission policy, the fix, the test rerun green,
// a streamed answer. The session is saved like any other.
import { createFaux } from "@tern/ai";
import { createSandbox } from "@tern/tools";
import { parseCommandArgs } from "../cli/args.js";
import type { ExitCode } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { loadHome } from "../config/home.js";
import { defaultPolicies } from "../config/policy-settings.js";
import { portNumber } from "../config/serve-settings.js";
import type { AgentSettings } from "../config/settings.js";
import { copyExample, findExample } from "../demo/project.js";
import { DEMO_PROMPT, type DemoState, demoReplies } from "../demo/script.js";
import { demoWeb } from "../demo/web.js";
import { helpFor, wantsHelp } from "../help.js";
import { RunSurface } from "../render/run-surface.js";
import { colorEnabled, createStyle } from "../render/style.js";
import { executeRun } from "../runtime/execute.js";
import { openRuntime } from "../runtime/runtime.js";

const ALLOW = ["bash(node --test:*)", "bash(npm test:*)"];
const DENY = ["bash(rm -rf:*)", "bash(git push:*)"];

export async function demoCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs(
    "demo",
    argv,
    { fast: { type: "boolean" }, web: { type: "boolean" }, port: { type: "string" } },
    0,
  );
  if (wantsHelp(values, io, helpFor("demo"))) return 0;
  const style = createStyle(colorEnabled(io.stderr, io.env));
  const warn = (message: string) => io.stderr.write(`${style.yellow("tern: warning:")} ${message}\n`);
  const source = findExample();
  const project = copyExample(source);

  const state: DemoState = {};
  const faux = createFaux({
    id: "scripted-demo-model",
    tokenDelayMs: values.fast ? 0 : 14,
    chunkSize: 3,
    replies: demoReplies(state),
  });
  const home = loadHome(io);
  // The demo's commands are scripted, not chosen by a model: where bubblewrap cannot run they run
  // unconfined, and the header says so.
  const sandbox = await createSandbox().status();
  const sandboxed = sandbox.profile === "sandbox" && sandbox.available;
  const settings: AgentSettings = {
    ...home,
    explicitModel: true,
    flags: [],
    toolMode: "auto",
    answerMode: "direct",
    maxTurns: 20,
    policies: defaultPolicies(),
    // The scripted model reads no instructions; the user's own AGENTS.md has no place here.
    instructions: false,
    cwd: project,
    explicitCwd: true,
    mode: "accept-edits",
    allow: ALLOW,
    deny: DENY,
    debug: values.debug === true,
    sandbox: sandboxed ? "sandbox" : "off",
    allowNet: false,
    allowHosts: [],
    denyHosts: [],
    strategy: "loop",
    roles: {},
  };

  const say = (text = "") => io.stderr.write(`${text}\n`);
  say(style.bold("tern demo") + style.dim(" — a real agent session, offline: no key, no network"));
  say(
    `  ${style.bold("model")}    ${style.magenta("a scripted model")} (the faux provider): its replies are small functions that read the real tool results`,
  );
  say(`  ${style.bold("project")}  ${project}  (a copy of examples/stats-bug: one bug, a failing test)`);
  say(`  ${style.bold("tools")}    real: read, write, edit, ls, glob, grep and bash run in that directory`);
  const sandboxNote = sandboxed
    ? "on: bash runs under bubblewrap (workspace writable, no network)"
    : `off: ${"reason" in sandbox ? sandbox.reason : "not chosen"} (the demo's commands are scripted)`;
  say(`  ${style.bold("sandbox")}  ${sandboxNote}`);
  say(`  ${style.bold("policy")}   accept-edits · allow ${ALLOW.join(", ")} · deny ${DENY.join(", ")}`);
  say(`  ${style.bold("task")}     ${DEMO_PROMPT}`);
  say();

  // A scripted model costs nothing: do not show the faux provider's nominal prices.
  const model = {
    ...faux.model,
    name: "scripted demo model",
    prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
  if (values.web === true) {
    const port = typeof values.port === "string" ? portNumber(values.port, "--port") : 0;
    return demoWeb({ settings, model, io, port, say, warn });
  }
  const runtime = await openRuntime({
    settings,
    env: io.env,
    warn,
    model,
    sessionName: "tern demo: fix the failing test",
  });
  const surface = new RunSurface(io.stdout, io.stderr, style, true);
  const { code } = await executeRun({
    io,
    style,
    surface,
    runtime,
    json: false,
    modelNote: "scripted model (faux)",
    start: () => runtime.agent.prompt(DEMO_PROMPT),
  });
  if (code !== 0) return code;
  const green =
    state.testsFailedFirst === true &&
    state.denied === true &&
    state.edited === true &&
    state.testsPassedAtEnd === true;
  const id = runtime.session.id.slice(0, 8);
  say();
  say(
    green
      ? style.green("The demo ended green: the test failed, the fix was made, the test passes.")
      : style.red("The demo did not end green (see above)."),
  );
  say();
  say(`${style.bold("The session is saved.")} Replay it:   tern sessions show ${id}`);
  say(`                     List them:   tern sessions ls --all`);
  say(`The fixed copy stays in ${project}`);
  say(
    style.dim(
      "(Not installed? In a clone, `tern` is `npm run tern --`; the README shows how to install it.)",
    ),
  );
  say();
  say(`${style.bold("The same with a real model,")} in any project (see the README for details):`);
  say(`  OpenAI      export OPENAI_API_KEY=sk-...;   tern run "the tests fail; find the bug and fix it"`);
  say(`  Anthropic   export ANTHROPIC_API_KEY=...;   tern run --provider anthropic "…"`);
  say(`  Ollama      ollama pull qwen3;              tern run --provider ollama --model qwen3 "…"`);
  say(
    `  llama.cpp   llama-server -m model.gguf --port 8080 --jinja;   tern run --provider llamacpp --model local "…"`,
  );
  say(`  interactive tern chat   ·   allow the test command: --allow-tool 'bash(npm test:*)'`);
  return green ? 0 : 1;
}
