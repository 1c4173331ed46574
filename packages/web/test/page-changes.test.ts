// The session's "Changes (N)" panel against one real `tern serve` child process (its checkpoints,
// its GET …/changes) and a scripted model, in Debian's chromium: empty before a run, refreshed when
// the run ends with the file it wrote and the file it edited, + and - lines coloured, a hostile
// file name and content shown as text, the same after a reload, at 360 px and in dark mode; a
// route that fails says so in the panel.
// No timing assertions: every wait is a DOM state with a ceiling.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ScriptServer, serveScript, textReply, toolReply } from "@tern/ai/testing";
import type { Page } from "playwright-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../cli/test/support/tern.js";
import { newPage, screenshot } from "./support/browser.js";
import { openNew, send, servePage } from "./support/page.js";

/** Ceiling for hangs only. */
const TEST_MS = 120_000;

const HOSTILE = "<img src=x onerror=alert(1)>";
const ADDED = `${HOSTILE}.md`;
/** The page's --add and --del colours, light and dark (style.css). */
const LIGHT = { add: "rgb(218, 251, 225)", del: "rgb(255, 235, 233)" };
const DARK = { add: "rgb(18, 38, 30)", del: "rgb(37, 23, 28)" };

let model: ScriptServer;
beforeEach(async () => {
  model = await serveScript();
});
afterEach(async () => {
  await model.close();
});

const panel = (page: Page) => page.locator("details.changes");

/** Opens the panel (a closed <details>) once its summary reads `summary`. */
async function openPanel(page: Page, summary: string): Promise<void> {
  const head = panel(page).locator("> summary");
  await head.filter({ hasText: summary }).waitFor();
  if (!(await panel(page).evaluate((details) => details.hasAttribute("open")))) await head.click();
}

/** Each listed file as "path status", sorted (two calls in one reply may run in either order). */
const files = (page: Page) =>
  panel(page)
    .locator("li.change-file > details > summary")
    .allTextContents()
    .then((all) => all.map((text) => text.trim()).sort());

const file = (page: Page, path: string) =>
  panel(page)
    .locator("li.change-file")
    .filter({ has: page.locator(".change-path", { hasText: path }) });

const background = (page: Page, selector: string) =>
  page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).backgroundColor`);

describe("the web page's changes panel", () => {
  it(
    "lists the files a run wrote and edited with their diffs, as text, the same after a reload",
    async () => {
      const { base, work } = await servePage(model, ["--mode", "accept-edits"]);
      writeFileSync(join(work, "notes.txt"), "one\ntwo\nthree\n");
      model.push(
        toolReply([
          { name: "write", args: { path: ADDED, content: `${HOSTILE}\n` } },
          { name: "edit", args: { path: "notes.txt", edits: [{ oldText: "two", newText: "TWO" }] } },
        ]),
        textReply("Wrote one file and edited another."),
      );
      const { page, errors } = await newPage();
      const dialogs: string[] = [];
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await openNew(page, base, "changes");
      await openPanel(page, "Changes (0)");
      await panel(page).getByText("No changes yet").waitFor();

      await send(page, "write a file and edit notes.txt");
      await page.locator("li.footer").waitFor();
      // The run's end reloads the panel: no reload of the page in between.
      await panel(page).locator("> summary").filter({ hasText: "Changes (2)" }).waitFor();
      expect(await files(page)).toEqual([`${ADDED} added`, "notes.txt modified"]);
      const removed = file(page, "notes.txt").locator(".diff .del");
      const added = file(page, "notes.txt").locator(".diff .add");
      expect(await removed.allTextContents()).toEqual(["-two\n"]);
      expect(await added.allTextContents()).toEqual(["+TWO\n"]);
      expect(await removed.isVisible()).toBe(true);
      expect(await added.isVisible()).toBe(true);
      expect(await file(page, ADDED).locator(".diff .add").allTextContents()).toEqual([`+${HOSTILE}\n`]);
      expect(await background(page, ".changes .diff .add")).toBe(LIGHT.add);
      expect(await background(page, ".changes .diff .del")).toBe(LIGHT.del);
      // The hostile name and content are text: no element was made of them, no handler ran.
      expect(await page.locator("img").count()).toBe(0);
      expect(dialogs).toEqual([]);

      // Collapsible per file: closing one hides its diff and leaves the other open.
      await file(page, "notes.txt").locator("summary").click();
      expect(await removed.isVisible()).toBe(false);
      expect(await file(page, ADDED).locator(".diff .add").isVisible()).toBe(true);

      const before = await panel(page).locator("ul.change-files").textContent();
      await page.reload();
      await openPanel(page, "Changes (2)");
      expect(await panel(page).locator("ul.change-files").textContent()).toBe(before);
      expect(await files(page)).toEqual([`${ADDED} added`, "notes.txt modified"]);
      expect(await file(page, "notes.txt").locator(".diff .del").isVisible()).toBe(true);

      // A phone: nothing wider than the screen; the diff scrolls inside its own box.
      await page.setViewportSize({ width: 360, height: 740 });
      await expect.poll(() => page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
      await page.emulateMedia({ colorScheme: "dark" });
      expect(await background(page, ".changes .diff .add")).toBe(DARK.add);
      expect(await background(page, ".changes .diff .del")).toBe(DARK.del);
      await screenshot(page, "changes-phone-dark");
      expect(await page.locator("img").count()).toBe(0);
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "says in the panel that the changes could not be read when the route fails",
    async () => {
      const home = tempDir();
      const { base } = await servePage(model, [], home);
      const { page, errors } = await newPage();
      await openNew(page, base, "unreadable");
      const id = decodeURIComponent(/#\/s\/(.+)$/.exec(page.url())![1]!);
      // A directory where the checkpoint log belongs: reading it fails in the real server (500).
      mkdirSync(join(home, "checkpoints", id, "log.jsonl"), { recursive: true });
      await page.reload();
      await openPanel(page, "Changes");
      await panel(page).getByText("The changes could not be read: internal server error").waitFor();
      expect((await panel(page).locator("> summary").textContent())?.trim()).toBe("Changes");
      expect(await page.getByRole("textbox", { name: "Message" }).isEnabled()).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );
});
