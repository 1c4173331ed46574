// Plan mode in the web page, against a real `tern serve` child and a scripted model on loopback,
// in Debian's chromium: a session created as a plan from the form, a diamond plan drawn as a graph
// in three levels whose steps go from pending through running to done (a step's tool call kept
// under its step), a failed step with its dependent skipped and a replan, and a reload mid-plan
// that shows every step once. No timing assertions: every wait is for a DOM state, with a ceiling
// for hangs only.

import { heldStep, type ScriptServer, serveScript, textReply, toolReply } from "@tern/ai/testing";
import type { Page } from "playwright-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newPage, SHOTS, screenshot } from "./support/browser.js";
import { openNew, send, servePage } from "./support/page.js";

const TEST_MS = 120_000;
let model: ScriptServer;

beforeEach(async () => {
  model = await serveScript();
});
afterEach(async () => {
  await model.close();
});

const plan = (steps: { id: string; task: string; dependencies?: string[] }[]) =>
  toolReply([{ name: "make_plan", args: { steps } }]);
const analysis = (achieved: boolean, confidence: number, reasoning: string) =>
  toolReply([{ name: "analyze_results", args: { achieved, confidence, reasoning } }]);

const DIAMOND = [
  { id: "a", task: "List the project files" },
  { id: "b", task: "Summarise the sources found in step a", dependencies: ["a"] },
  { id: "c", task: "Summarise the tests found in step a", dependencies: ["a"] },
  {
    id: "d",
    task: "Write the overview from the two summaries, sources first, then tests, in plain words a newcomer follows",
    dependencies: ["b", "c"],
  },
];

/**
 * The diamond run: a lists files (one tool call, then `aText`, held until `finishA()` so the test
 * sees step a running for as long as it looks), b, c, d, the analysis, `answer`.
 */
const diamondRun = (aText: string, answer: string) => {
  const heldA = heldStep(textReply(aText));
  const steps = [
    plan(DIAMOND),
    toolReply([{ name: "ls", args: {} }]),
    heldA.step,
    textReply("Sources summarised."),
    textReply("Tests summarised."),
    textReply("Overview written."),
    analysis(true, 0.95, "all four steps done"),
    textReply(answer),
  ];
  return { steps, finishA: heldA.release };
};

/** The steps of the page's plan graphs, as list items named "Step <id>: <task> — <status>". */
const steps = (page: Page) =>
  page.getByRole("list", { name: /^Plan, round \d+ steps$/ }).getByRole("listitem");
const step = (page: Page, id: string, status: string) =>
  page.getByRole("listitem", { name: new RegExp(`^Step ${id}: .* — ${status}$`) });

describe("plan mode in the web page", () => {
  it(
    "draws a diamond plan as a graph in three levels whose steps run to done, then the answer",
    async () => {
      const { base } = await servePage(model);
      const run = diamondRun("Files: a.txt and b.txt, listed one by one.", "The **overview** is ready.");
      model.push(...run.steps);
      const { page, errors } = await newPage();
      await openNew(page, base, "diamond", "plan");
      const entry = page.getByRole("navigation").getByRole("listitem").filter({ hasText: "diamond" });
      await entry.filter({ hasText: "plan" }).waitFor();
      await send(page, "give me an overview");

      // While a runs, the others wait; the graph's title counts steps and levels.
      await step(page, "a", "running").waitFor();
      await step(page, "d", "pending").waitFor();
      expect(await page.locator(".plan-title").textContent()).toBe("Plan, round 1: 4 steps in 3 levels");
      expect(await steps(page).count()).toBe(4);
      const column = (id: string) =>
        page.evaluate(`getComputedStyle(document.querySelector('[data-step="${id}"]')).gridColumnStart`);
      expect([await column("a"), await column("b"), await column("c"), await column("d")]).toEqual([
        "1",
        "2",
        "2",
        "3",
      ]);
      expect(await step(page, "d", "pending").textContent()).toContain("after b, c");
      run.finishA();

      for (const id of ["a", "b", "c", "d"]) await step(page, id, "done").waitFor();
      await page.locator("li.answer strong").filter({ hasText: "overview" }).waitFor();
      expect(await page.locator("li.footer").textContent()).toMatch(/^4 steps · [\d,]+ tokens/);
      // Each done step shows its duration and tokens; the long task is cut, in full on its title.
      for (const id of ["a", "b", "c", "d"])
        expect(await step(page, id, "done").locator(".step-meta").textContent()).toMatch(
          /^\d+\.\d s · [\d,]+ tokens$/,
        );
      const d = step(page, "d", "done");
      expect(await d.locator(".step-task").getAttribute("title")).toBe(DIAMOND[3]!.task);
      expect(await d.locator(".step-task").textContent()).toMatch(/…$/);
      expect(await d.locator("details > p").textContent()).toBe(DIAMOND[3]!.task);
      // a's tool call sits under a, collapsed, and not in the turn's own list.
      const a = step(page, "a", "done");
      expect(await a.locator("details.step-tools > summary").textContent()).toBe("1 tool call");
      expect(await a.locator("details.step-tools").getAttribute("open")).toBeNull();
      expect(await page.locator("article.turn > ol.items > li.tool").count()).toBe(0);
      expect(await page.locator("li.note").filter({ hasText: "Analysis, round 1" }).textContent()).toContain(
        "achieved · confidence 0.95 · all four steps done",
      );
      // The connectors: one line from each dependency to its step.
      expect(await page.locator(".plan-lines path").count()).toBe(4);
      await screenshot(page, "plan");
      await screenshot(page, "plan-docs", `${SHOTS}web-plan.png`);
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "shows a failed step with its dependent skipped, the analysis and the replan as notes",
    async () => {
      const { base } = await servePage(model);
      model.push(
        plan([
          { id: "fetch", task: "Fetch the numbers" },
          { id: "sum", task: "Add the numbers up", dependencies: ["fetch"] },
        ]),
        { kind: "json", status: 400, body: { error: { message: "the model refused this step" } } },
        analysis(false, 0.2, "nothing was fetched"),
        plan([{ id: "guess", task: "Estimate the sum" }]),
        textReply("About 42."),
        analysis(true, 0.9, "estimated"),
        textReply("The sum is about 42."),
      );
      const { page, errors } = await newPage();
      await openNew(page, base, "failing", "plan");
      await send(page, "add the numbers");
      await page.locator("li.answer").filter({ hasText: "about 42" }).waitFor();
      const failed = step(page, "fetch", "failed");
      expect(await failed.locator(".step-status").textContent()).toBe("✗ failed");
      expect(await failed.locator(".step-error").textContent()).toContain("the model refused this step");
      const skipped = step(page, "sum", "skipped");
      expect(await skipped.locator(".step-error").textContent()).toContain("fetch");
      // It never ran: no time or tokens.
      expect(await skipped.locator(".step-meta").count()).toBe(0);
      expect(await page.locator("li.note").filter({ hasText: "Analysis, round 1" }).textContent()).toContain(
        "not achieved · confidence 0.20",
      );
      expect(await page.locator("li.note").filter({ hasText: "Replan, round 2" }).count()).toBe(1);
      expect(await page.locator(".plan-title").allTextContents()).toEqual([
        "Plan, round 1: 2 steps in 2 levels",
        "Plan, round 2: 1 step in 1 level",
      ]);
      await step(page, "guess", "done").waitFor();
      await screenshot(page, "plan-failed");
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "reloaded mid-plan, shows the plan and each step exactly once",
    async () => {
      const { base } = await servePage(model);
      const run = diamondRun("Files listed.", "Overview ready.");
      model.push(...run.steps);
      const { page, errors } = await newPage();
      await openNew(page, base, "reloaded", "plan");
      await send(page, "give me an overview");
      await step(page, "a", "running").locator("details.step-tools").waitFor();
      await page.reload();
      // Still mid-plan after the reload: a runs (its model call held) and d waits.
      await step(page, "a", "running").locator("details.step-tools").waitFor();
      await step(page, "d", "pending").waitFor();
      run.finishA();
      await step(page, "d", "done").waitFor();
      await page.locator("li.answer").filter({ hasText: "Overview ready." }).waitFor();
      expect(await page.locator("li.plan").count()).toBe(1);
      expect(await steps(page).count()).toBe(4);
      expect(await step(page, "a", "done").locator("details.step-tools > summary").textContent()).toBe(
        "1 tool call",
      );
      expect(await page.locator("li.note").filter({ hasText: "Analysis" }).count()).toBe(1);
      expect(await page.locator("li.answer").count()).toBe(1);
      await screenshot(page, "plan-reloaded");
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );
});
