// The loop policies as switches: --policy, "policies" in config.json and the REACT_* variables
// reach the agent's options (in process), every bad name or value is a usage error, and a real
// `tern run` shows the active policies in its header and --json stream and runs with them;
// `tern chat`'s header lists them the same way.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, wireMessages } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../src/cli/errors.js";
import { policiesLabel } from "../src/config/policy-settings.js";
import { reactOptions } from "../src/runtime/loop-options.js";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { settingsFor } from "./support/settings.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

const react = (argv: string[], env?: NodeJS.ProcessEnv, config?: unknown) =>
  reactOptions(settingsFor(argv, env, config));

describe("policy settings", () => {
  it("default to FIM One's: four on, autopilot and synthesis off", () => {
    expect(react([])).toMatchObject({
      completionCheck: { minTools: 3 },
      reflection: { every: 6 },
      cycleDetection: { threshold: 3 },
      toolSelection: { threshold: 12, maxSelected: 6, catalogLineChars: 80 },
      autopilot: false,
      answerMode: "direct",
    });
    expect(policiesLabel(settingsFor([]).policies)).toBe(
      "policies completion-check, reflection, cycle-detection, tool-selection",
    );
  });

  it("flags switch and tune them, repeated, the last one winning", () => {
    const options = react([
      "--policy",
      "completion-check=off",
      "--policy",
      "reflection.after=10",
      "--policy",
      "autopilot=on",
      "--policy",
      "cycle-detection.threshold=4",
      "--policy",
      "cycle-detection.threshold=5",
    ]);
    expect(options).toMatchObject({
      completionCheck: false,
      reflection: { every: 10 },
      cycleDetection: { threshold: 5 },
      autopilot: { maxNudges: 3 },
    });
    expect(react(["--policy", "synthesis=on"]).answerMode).toBe("synthesize");
    expect(react(["--answer-mode", "synthesize", "--policy", "synthesis=off"]).answerMode).toBe("direct");
  });

  it('config.json "policies" sets them; the environment wins over it and flags over both', () => {
    const config = {
      policies: { "completion-check": false, reflection: { after: 10 }, "cycle-detection": { threshold: 4 } },
    };
    expect(react([], {}, config)).toMatchObject({
      completionCheck: false,
      reflection: { every: 10 },
      cycleDetection: { threshold: 4 },
    });
    const env = { REACT_CYCLE_DETECTION_THRESHOLD: "7", REACT_COMPLETION_CHECK_MIN_TOOLS: "1" };
    expect(react([], env, config)).toMatchObject({ cycleDetection: { threshold: 7 } });
    expect(react([], env)).toMatchObject({
      completionCheck: { minTools: 1 },
      cycleDetection: { threshold: 7 },
    });
    expect(react(["--policy", "cycle-detection.threshold=2"], env, config)).toMatchObject({
      cycleDetection: { threshold: 2 },
    });
  });

  it("maps TERN_MAX_SUBAGENT_DEPTH onto the task tool's option", () => {
    expect(settingsFor([], { TERN_MAX_SUBAGENT_DEPTH: "3" }).maxSubagentDepth).toBe(3);
    expect(settingsFor([]).maxSubagentDepth).toBeUndefined();
    expect(() => settingsFor([], { TERN_MAX_SUBAGENT_DEPTH: "0" })).toThrow(/TERN_MAX_SUBAGENT_DEPTH/);
  });

  it.each([
    [
      ["--policy", "nope=off"],
      /--policy nope=off: unknown policy "nope" \(policies: completion-check, reflection/,
    ],
    [["--policy", "reflection"], /use NAME=on, NAME=off or NAME.SETTING=NUMBER/],
    [["--policy", "reflection=maybe"], /the value must be on or off/],
    [["--policy", "reflection.every=3"], /reflection has no setting "every" \(settings: after\)/],
    [["--policy", "reflection.after=0"], /must be a whole number of at least 1 \(got "0"\)/],
    [["--policy", "cycle-detection.threshold=1"], /at least 2/],
    [["--policy", "reflection.after=1e3"], /whole number/],
    [["--policy", "__proto__=on"], /unknown policy "__proto__"/],
  ])("%j is a usage error", (argv, message) => {
    expect(() => settingsFor(argv)).toThrow(UsageError);
    expect(() => settingsFor(argv)).toThrow(message);
  });

  it.each([
    [{ policies: { nope: true } }, /"policies": unknown policy "nope"/],
    [{ policies: { reflection: "off" } }, /"policies".reflection must be true, false or an object/],
    [{ policies: { reflection: { after: "10" } } }, /"policies".reflection.after must be a whole number/],
    [{ policies: { reflection: { after: 2.5 } } }, /must be a whole number of at least 1/],
  ])("config %j is a usage error", (config, message) => {
    expect(() => settingsFor([], {}, config)).toThrow(message);
  });

  it("a bad REACT_* value is a usage error naming the variable", () => {
    expect(() => settingsFor([], { REACT_CYCLE_DETECTION_THRESHOLD: "two" })).toThrow(
      /REACT_CYCLE_DETECTION_THRESHOLD must be a whole number of at least 2 \(got "two"\)/,
    );
  });
});

describe("tern run with policy switches", () => {
  const workspace = () => {
    const work = tempDir();
    writeFileSync(join(work, "note.txt"), "the note says hi\n");
    return work;
  };

  it("runs with them, and the header and the --json stream list the active ones", async () => {
    const server = await startScriptedModel([
      toolReply([{ name: "read", args: { path: "note.txt" } }]),
      textReply("The note says hi."),
      textReply("The note says hi."),
    ]);
    const argv = ["--policy", "reflection.after=1", "--policy", "completion-check.min-tools=1", "read it"];
    const result = await runTern(["run", ...argv], { env: scriptedModelEnv(server), cwd: workspace() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /· policies completion-check\(min-tools=1\), reflection\(after=1\), cycle-detection, tool-selection ·/,
    );
    // The reflection after one call, then the completion check after the first answer.
    const second = wireMessages(server.requests[1]!.body).map(contentText).join("\n");
    expect(second).toMatch(/\[SELF-REFLECTION\] You have made 1 tool calls/);
    const third = wireMessages(server.requests[2]!.body).map(contentText).join("\n");
    expect(third).toMatch(/\[COMPLETION CHECK\]/);

    const json = await startScriptedModel([textReply("ok")]);
    const off = await runTern(["run", "--json", "--policy", "tool-selection=off", "hi"], {
      env: { ...scriptedModelEnv(json), REACT_CYCLE_DETECTION_THRESHOLD: "5" },
      cwd: workspace(),
    });
    expect(off.code, off.stderr).toBe(0);
    const lines = off.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.find((line) => line.type === "policies")).toEqual({
      type: "policies",
      policies: [
        { name: "completion-check", params: { "min-tools": 3 } },
        { name: "reflection", params: { after: 6 } },
        { name: "cycle-detection", params: { threshold: 5 } },
      ],
    });
  });

  terminalIt("tern chat's header lists the active policies as tern run's does", async () => {
    const server = await startScriptedModel([textReply("never asked")]);
    const tmux = startChat(
      ["--policy", "reflection.after=2", "--policy", "cycle-detection=off"],
      { ...scriptedModelEnv(server), TERN_HOME: tempDir() },
      workspace(),
    );
    await tmux.waitFor(/policies completion-check, reflection\(after=2\), tool-selection\n/);
    expect(server.requests).toHaveLength(0);
  });

  it("an unknown policy is a usage error with exit code 2, before any model call", async () => {
    const server = await startScriptedModel([textReply("never")]);
    const result = await runTern(["run", "--policy", "reflexion=off", "hi"], {
      env: scriptedModelEnv(server),
      cwd: workspace(),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--policy reflexion=off: unknown policy "reflexion"/);
    expect(server.requests).toHaveLength(0);
  });
});
