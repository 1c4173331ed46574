// The web page against a real `tern serve` child process, and against a two-node cluster of them
// on a throwaway PostgreSQL, with a scripted OpenAI-compatible model on loopback, in Debian's
// chromium: sessions, a run with parallel tool calls and a streamed
// answer, permission questions answered both ways, Stop, reload mid-run and a second tab, an
// interrupt typed during a run, the compaction divider, the token prompt, a hostile answer.
// No timing assertions: every wait is for a DOM state, with a ceiling for hangs only.
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  contentText,
  gate,
  type ScriptServer,
  serveScript,
  textReply,
  toolReply,
  wireMessages,
} from "@tern/ai/testing";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeLater, spawnTern, tempDir, ternEnv } from "../../cli/test/support/tern.js";
import { messageTaken, until } from "../../cluster/test/support/nodes.js";
import { startTestPostgres, type TestPostgres } from "../../session/test/support/postgres.js";
import { newPage, screenshot } from "./support/browser.js";
import { openNew, send, serveClusterPage, servePage } from "./support/page.js";

/** Ceiling for hangs only (a cluster's nodes migrate a fresh database first). */
const TEST_MS = 240_000;
let model: ScriptServer;

beforeEach(async () => {
  model = await serveScript();
});
afterEach(async () => {
  await model.close();
});

const footers = (page: Page) => page.locator("li.footer");

let pg: TestPostgres | undefined;
afterAll(async () => {
  await pg?.dispose();
});

/**
 * One `tern serve`, and a two-node cluster of them (`--store postgres://…`, each also a worker)
 * whose second node serves the second tab. A cluster streams persisted events only: its answer
 * arrives whole, so "under way" is the Stop button there rather than the live text.
 */
describe.each(["one server", "a two-node cluster"] as const)("the web page on %s", (host) => {
  const cluster = host === "a two-node cluster";
  const serve = async (extra: string[] = [], home = tempDir()) => {
    if (!cluster) {
      const one = await servePage(model, extra, home);
      return { ...one, other: one.base };
    }
    pg ??= await startTestPostgres();
    const nodes = await serveClusterPage(model, pg.url, extra, home);
    stopAfter.push(nodes.stop);
    return nodes;
  };
  // A test's nodes (workers that poll their database) do not outlive it on a shared machine.
  const stopAfter: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stopAfter.splice(0)) await stop();
  });
  const underWay = (page: Page) =>
    cluster ? page.getByRole("button", { name: "Stop" }).waitFor() : page.locator("li.draft").waitFor();

  it(
    "prints its address, lists, creates and deletes sessions with a model from the catalogue",
    async () => {
      const { base, proc } = await serve();
      await proc.waitFor(/in a browser/, "stdout");
      expect(proc.stdout).toContain(`open ${base}/ in a browser`);
      const { page, errors } = await newPage();
      await openNew(page, base, "first");
      const models = await page.getByLabel("Model").locator("option").allTextContents();
      expect(models.some((text) => text.includes("scripted"))).toBe(true);
      const entry = page.getByRole("navigation").getByRole("listitem").filter({ hasText: "first" });
      await entry.filter({ hasText: "idle" }).waitFor();
      await entry.getByRole("button", { name: "Delete first" }).click();
      await entry.getByRole("button", { name: "Confirm delete first" }).click();
      await entry.waitFor({ state: "detached" });
      // A session that is not there: the page says so instead of breaking.
      await page.goto(`${base}/#/s/not-a-session`);
      expect(await page.getByRole("alert").textContent()).toMatch(/session/i);
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "shows a run with parallel tool calls as cards and streams the answer as Markdown",
    async () => {
      const { base, work } = await serve();
      writeFileSync(join(work, "a.txt"), "alpha\n");
      writeFileSync(join(work, "b.txt"), "beta\n");
      // The answer stops after a few deltas until the page has shown it under way.
      const answer = gate();
      model.push(
        toolReply(
          [
            { name: "read", args: { path: "a.txt" } },
            { name: "read", args: { path: "b.txt" } },
          ],
          { text: "Reading both files." },
        ),
        textReply("Both files read: **alpha** and *beta*.\n\n- one\n- two", {
          chunkSize: 3,
          holdAfter: { deltas: 3, until: answer.until },
        }),
      );
      const { page, errors } = await newPage();
      await openNew(page, base);
      await send(page, "read a and b");
      await underWay(page);
      answer.release();
      await footers(page).waitFor();
      const cards = page.getByRole("listitem").and(page.locator("li.tool"));
      expect(await cards.count()).toBe(2);
      expect(await cards.filter({ hasText: "done" }).count()).toBe(2);
      expect(await cards.allTextContents()).toEqual([
        expect.stringContaining("path=a.txt"),
        expect.stringContaining("path=b.txt"),
      ]);
      await expect.poll(() => page.locator("li.answer strong").textContent()).toBe("alpha");
      expect(await page.locator("li.answer li").count()).toBe(2);
      // The model's words before its tool calls are its text, not reasoning (it sent no thinking).
      expect(await page.locator("li.text").first().textContent()).toContain("Reading both files.");
      expect(await page.locator("li.reasoning").count()).toBe(0);
      expect(await page.getByRole("status").textContent()).toContain("Both files read");
      expect(await footers(page).textContent()).toMatch(/2 iterations · [\d,]+ tokens/);
      await screenshot(page, "run");
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "asks permission in a dialog: Allow once writes, Deny with a note does not",
    async () => {
      const { base, work } = await serve();
      model.push(
        toolReply([{ name: "write", args: { path: "yes.txt", content: "ok" } }]),
        textReply("Wrote yes.txt."),
      );
      const { page } = await newPage();
      await openNew(page, base);
      await send(page, "write yes.txt");
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("button", { name: "Allow once" }).waitFor();
      expect(await dialog.getByRole("button", { name: "Always allow" }).count()).toBe(1);
      await expect.poll(() => page.evaluate("document.activeElement?.textContent")).toBe("Allow once");
      await screenshot(page, "permission");
      await dialog.getByRole("button", { name: "Allow once" }).click();
      await footers(page).waitFor();
      expect(existsSync(join(work, "yes.txt"))).toBe(true);
      expect(await page.locator("li.note").filter({ hasText: "Permission allowed" }).count()).toBe(1);

      model.push(
        toolReply([{ name: "write", args: { path: "no.txt", content: "no" } }]),
        textReply("Understood, not written."),
      );
      await send(page, "write no.txt");
      await dialog.getByRole("button", { name: "Deny" }).waitFor();
      await dialog.getByLabel("Note to the model").fill("not that file");
      await dialog.getByRole("button", { name: "Deny" }).click();
      await footers(page).nth(1).waitFor();
      expect(existsSync(join(work, "no.txt"))).toBe(false);
      expect(await page.locator("li.note").filter({ hasText: "Permission denied" }).textContent()).toContain(
        "not that file",
      );
      const toolResult = wireMessages(model.requests.at(-1)!.body)
        .filter((m) => m.role === "tool")
        .at(-1);
      expect(contentText(toolResult)).toContain("not that file");
      await page.close();
    },
    TEST_MS,
  );

  it(
    "stops a run mid-stream with Stop, and the session goes on afterwards",
    async () => {
      const { base } = await serve();
      // Held mid-stream until Stop aborts it (the held reply ends when its client goes).
      model.push(
        textReply("word ".repeat(400), { chunkSize: 5, holdAfter: { deltas: 3, until: gate().until } }),
      );
      const { page } = await newPage();
      await openNew(page, base);
      await send(page, "talk a lot");
      await underWay(page);
      // Mid-stream means the model has the request. On a cluster the Stop button shows once the
      // node queued the run, before a worker sent anything: a Stop then ends the run with no
      // request (as it should), and the reply scripted for it would answer "go on" instead.
      await model.requestsReceived(1);
      await page.getByRole("button", { name: "Stop" }).click();
      await footers(page).filter({ hasText: "aborted" }).waitFor();
      await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
      model.push(textReply("Back again."));
      await send(page, "go on");
      await page.locator("li.answer").filter({ hasText: "Back again." }).waitFor();
      await page.close();
    },
    TEST_MS,
  );

  // Open on a cluster: after a reload mid-run the page misses the run's user message there (the
  // node's run_from against its copy of the session); not yet solved, so not claimed.
  (cluster ? it.skip : it)(
    "reloaded mid-run, and in a second tab, shows the run exactly once",
    async () => {
      const { base, other } = await serve();
      // The answer stops mid-stream until both tabs have loaded the run.
      const answer = gate();
      model.push(
        toolReply([{ name: "ls", args: {} }]),
        textReply("Listed the directory. ".repeat(30), {
          chunkSize: 4,
          holdAfter: { deltas: 20, until: answer.until },
        }),
      );
      const { page } = await newPage();
      await openNew(page, base);
      await send(page, "list it");
      await page.locator("li.tool.done").waitFor();
      await underWay(page);
      await page.reload();
      const second = (await newPage()).page;
      await second.goto(page.url().replace(base, other));
      // Both tabs have the run's history before the rest of the answer comes.
      for (const tab of [page, second]) await tab.locator("li.tool.done").waitFor();
      answer.release();
      for (const tab of [page, second]) {
        await footers(tab).waitFor();
        expect(await tab.locator("li.user").count()).toBe(1);
        expect(await tab.locator("li.tool").count()).toBe(1);
        expect(await tab.locator("li.answer").count()).toBe(1);
        expect(await tab.locator("li.draft").count()).toBe(0);
        expect((await tab.locator("li.answer").textContent())?.trim()).toBe(
          "Listed the directory. ".repeat(30).trim(),
        );
      }
      await screenshot(second, "second-tab");
      await page.close();
      await second.close();
    },
    TEST_MS,
  );

  it(
    "delivers a message typed during a run as steering, shown where it landed",
    async () => {
      const served = await serve();
      const { base } = served;
      // The first reply waits until the run has taken the steering message, so the note lands
      // after that turn's tools however slowly the page types on a loaded machine. On a cluster the
      // node's answer only means the message is recorded: the worker takes it from the database,
      // and one it took after the run's last turn would become the session's next run instead.
      let steered!: () => void;
      const steeringTaken = new Promise<void>((resolve) => {
        steered = resolve;
      });
      model.push(async () => {
        await steeringTaken;
        return toolReply([{ name: "ls", args: {} }], { text: "Looking around first." });
      }, textReply("Done, and I saw your note."));
      const { page } = await newPage();
      await openNew(page, base);
      await send(page, "look around");
      await page.getByRole("button", { name: "Stop" }).waitFor();
      const interrupt = page.waitForResponse((response) => response.url().endsWith("/interrupt"));
      await send(page, "also mention the weather");
      expect((await interrupt).ok()).toBe(true);
      if ("database" in served) await until(() => messageTaken(served.database, "also mention the weather"));
      steered();
      await footers(page).waitFor();
      const kinds = await page
        .locator("ol.items > li")
        .evaluateAll((items) => items.map((item) => item.className));
      const note = kinds.indexOf("note");
      expect(note).toBeGreaterThan(kinds.indexOf("tool done"));
      expect(note).toBeLessThan(kinds.indexOf("answer"));
      expect(await page.locator("li.note").textContent()).toContain("also mention the weather");
      const sent = wireMessages(model.requests.at(-1)!.body).map(contentText).join("\n");
      expect(sent).toContain("also mention the weather");
      await page.close();
    },
    TEST_MS,
  );

  it(
    "shows a compaction as a divider with the message counts",
    async () => {
      const home = tempDir();
      writeFileSync(
        join(home, "config.json"),
        JSON.stringify({
          models: [{ id: "tiny", provider: "local", contextWindow: 3000, maxOutputTokens: 500 }],
        }),
      );
      const { base } = await serve(["--provider", "local", "--model", "tiny", "--tools", "none"], home);
      const long = "All work and no play makes a long reply. ".repeat(120);
      model.push(
        textReply(long),
        textReply(long),
        textReply("Summary of the talk so far."),
        textReply("Short."),
      );
      const { page } = await newPage();
      await openNew(page, base);
      for (const [index, text] of ["one", "two", "three"].entries()) {
        await send(page, text);
        await footers(page).nth(index).waitFor();
      }
      expect(await page.locator("li.compact").textContent()).toMatch(/Context compacted: \d+ → \d+ messages/);
      await screenshot(page, "compaction");
      // Reloaded after a compaction inside the newest run: that run still shows once.
      await page.reload();
      await page.locator("li.compact").waitFor();
      expect(
        await page
          .locator("li.user")
          .filter({ hasText: /^You three$/ })
          .count(),
      ).toBe(1);
      expect(
        await page
          .locator("li.answer")
          .filter({ hasText: /^Short\.\s*$/ })
          .count(),
      ).toBe(1);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "asks for the token once per tab and never puts it in the URL",
    async () => {
      const { base } = await serve(["--token", "tab-secret"]);
      const { page } = await newPage();
      await page.goto(`${base}/`);
      const token = page.getByRole("textbox", { name: "Token" });
      await token.waitFor();
      expect(await page.getByText("That token was refused.").count()).toBe(0);
      await token.fill("wrong");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByText("That token was refused.").waitFor();
      await token.fill("tab-secret");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("button", { name: "New session" }).click();
      await page.getByRole("heading", { level: 1 }).waitFor();
      model.push(textReply("Authorised."));
      await send(page, "hello");
      await page.locator("li.answer").filter({ hasText: "Authorised." }).waitFor();
      await page.reload();
      await page.locator("li.answer").filter({ hasText: "Authorised." }).waitFor();
      expect(page.url()).not.toContain("tab-secret");
      expect(await page.evaluate('sessionStorage.getItem("tern-token")')).toBe("tab-secret");
      // Another tab has its own sessionStorage: it asks again.
      const other = (await newPage()).page;
      await other.goto(`${base}/`);
      await other.getByRole("textbox", { name: "Token" }).waitFor();
      await screenshot(other, "token");
      await other.close();
      await page.close();
    },
    TEST_MS,
  );

  it(
    "renders a hostile answer inert: no handlers, no javascript: links, no scripts",
    async () => {
      const { base } = await serve();
      model.push(
        textReply(
          'Look: <img src="x" onerror="window.__pwned = 1"> [click me](javascript:window.__pwned=2) ' +
            '<a href="javascript:window.__pwned=3">raw</a> <script>window.__pwned = 4</script> <iframe src="/"></iframe>',
        ),
      );
      const { page, errors } = await newPage();
      await openNew(page, base);
      await send(page, "be hostile");
      await footers(page).waitFor();
      const answer = page.locator("li.answer .markdown");
      expect(await answer.locator("script, iframe").count()).toBe(0);
      expect(await answer.locator("[onerror]").count()).toBe(0);
      for (const link of await answer.locator("a").all()) {
        expect((await link.getAttribute("href")) ?? "").not.toMatch(/^javascript:/i);
        await link.click();
      }
      expect(await page.evaluate("window.__pwned")).toBeUndefined();
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );
});

describe("the web page of the demo", () => {
  it(
    "runs the offline demo in the page: tern demo --web",
    async () => {
      const demo = spawnTern(["demo", "--web", "--fast"], {
        env: ternEnv({ TERN_HOME: tempDir() }),
        cwd: tempDir(),
      });
      try {
        await demo.waitFor(/open (\S+) in a browser/, "stdout", 30_000);
        const project = /project\s+(\S+)/.exec(demo.stderr)?.[1];
        if (project) removeLater(dirname(project));
        const url = /open (\S+) in a browser/.exec(demo.stdout)![1]!;
        const { page, errors } = await newPage();
        await page.goto(url);
        await footers(page).waitFor();
        expect(await page.locator("li.tool .diff .add").textContent()).toContain("let i = 0");
        expect(await page.locator("li.tool").filter({ hasText: "failed" }).count()).toBeGreaterThan(0);
        expect(await page.locator("li.answer").textContent()).toContain("The bug");
        expect(errors).toEqual([]);
        await page.close();
      } finally {
        demo.child.kill("SIGINT");
        expect((await demo.done).code).toBe(0);
      }
    },
    TEST_MS,
  );
});
