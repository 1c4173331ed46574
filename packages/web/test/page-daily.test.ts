// The page as a new user meets it, against one real `tern serve` child process and a scripted
// OpenAI-compatible model, in Debian's chromium (one browser for the file): the message box on
// arrival, injected messages and the final answer labelled the same live and after a reload, the
// model's own words apart from its reasoning, permission records, session search, shortcuts, a
// phone-wide layout and dark mode. No timing assertions: every wait is a DOM state with a ceiling.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { until } from "../../cluster/test/support/nodes.js";
import { newPage, screenshot } from "./support/browser.js";
import { openNew, send, servePage } from "./support/page.js";

/** Ceiling for hangs only. */
/** The share of a narrow viewport's width the message box must take (it was 10 px of 420). */
const MIN_BOX_SHARE = 0.6;

const TEST_MS = 120_000;
const IMAGES = fileURLToPath(new URL("../../../docs/images/", import.meta.url));

let model: ScriptServer;
beforeEach(async () => {
  model = await serveScript();
});
afterEach(async () => {
  await model.close();
});

/** Each note's label and the start of its text, in order. */
const notes = (page: Page) =>
  page
    .locator("li.note")
    .evaluateAll((items) =>
      items.map((item) => `${item.querySelector(".label")?.textContent}|${item.textContent?.slice(0, 80)}`),
    );

describe("the web page, day to day", () => {
  it(
    "shows the answer after a completion check, with the same labels live and after a reload",
    async () => {
      const { base } = await servePage(model);
      model.push(
        toolReply([
          { name: "ls", args: {} },
          { name: "ls", args: { path: "." } },
          { name: "ls", args: { path: "./" } },
        ]),
        textReply("A first answer."),
        textReply("The checked final answer."),
      );
      const { page, errors } = await newPage();
      await openNew(page, base, "checked");
      await send(page, "look three times");
      await page.locator("li.footer").waitFor();
      const answer = page.locator("li.answer").filter({ hasText: "The checked final answer." });
      await answer.waitFor();
      const live = await notes(page);
      expect(live.map((note) => note.split("|")[0])).toContain("Completion check");
      expect(await page.locator("li.text").filter({ hasText: "A first answer." }).count()).toBe(1);
      // A second run makes the first one history (stored messages, not replayed frames).
      model.push(textReply("You are welcome."));
      await send(page, "thanks");
      await page.locator("li.footer").nth(1).waitFor();
      await page.reload();
      await page.locator("li.answer").filter({ hasText: "You are welcome." }).waitFor();
      const first = page.locator("article.turn").first();
      expect(await first.locator("li.answer").textContent()).toContain("The checked final answer.");
      expect(await first.locator("li.text").filter({ hasText: "A first answer." }).count()).toBe(1);
      expect(await notes(page)).toEqual(live);
      expect(await page.locator("li.user").allTextContents()).toEqual(["You look three times", "You thanks"]);
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "starts the next run with a message sent just as a run ends, instead of losing it",
    async () => {
      const { base } = await servePage(model);
      const first = gate();
      model.push(async () => {
        await first.until;
        return textReply("The first answer.");
      }, textReply("The second answer."));
      const { page, errors } = await newPage();
      await openNew(page, base, "race");
      await send(page, "first");
      await page.getByRole("button", { name: "Stop" }).waitFor();
      // The page sends "second" to steer the run it is following; the request is held until that
      // run is over on the server, which then has no run to steer.
      const id = /#\/s\/(.+)$/.exec(page.url())![1]!;
      await page.route(
        (url) => url.pathname.endsWith("/interrupt"),
        async (route) => {
          first.release();
          await until(async () => {
            const res = await fetch(`${base}/api/sessions/${id}`);
            return !((await res.json()) as { session: { running: boolean } }).session.running;
          });
          await route.continue();
        },
      );
      await send(page, "second");
      await page.locator("li.answer").filter({ hasText: "The second answer." }).waitFor();
      expect(await page.locator("li.user").allTextContents()).toEqual(["You first", "You second"]);
      const sent = wireMessages(model.requests.at(-1)!.body).map(contentText);
      expect(sent.at(-1)).toBe("second");
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "keeps the runs it shows when a session list read during a run arrives after that run's end",
    async () => {
      const { base } = await servePage(model);
      const second = gate();
      model.push(
        textReply("The first answer."),
        async () => {
          await second.until;
          return textReply("The second answer.");
        },
        textReply("The third answer."),
      );
      const { page, errors } = await newPage();
      await openNew(page, base, "stale list");
      await send(page, "first");
      await page.locator("li.footer").waitFor();
      // Every list read during the second run says it runs; they reach the page after its end.
      const held: { running: boolean; fulfill: () => Promise<void> }[] = [];
      let holding = true;
      await page.route(
        (url) => url.pathname === "/api/sessions",
        async (route) => {
          if (!holding || route.request().method() !== "GET") return route.continue();
          const response = await route.fetch();
          const { sessions } = (await response.json()) as { sessions: { running: boolean }[] };
          held.push({ running: sessions[0]!.running, fulfill: () => route.fulfill({ response }) });
        },
      );
      await send(page, "second");
      await page.getByRole("button", { name: "Stop" }).waitFor();
      await until(() => held.some((answer) => answer.running));
      second.release();
      await page.locator("li.footer").nth(1).waitFor();
      await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
      holding = false;
      const id = /#\/s\/(.+)$/.exec(page.url())![1]!;
      const checked = page.waitForResponse((res) => new URL(res.url()).pathname === `/api/sessions/${id}`);
      for (const answer of held.splice(0)) await answer.fulfill();
      await checked;
      await send(page, "third");
      await page.locator("li.answer").filter({ hasText: "The third answer." }).waitFor();
      expect(await page.locator("li.user").allTextContents()).toEqual([
        "You first",
        "You second",
        "You third",
      ]);
      expect(await page.locator("li.footer").count()).toBe(3);
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "files the model's own words before a tool call as its text, not as reasoning",
    async () => {
      const { base } = await servePage(model);
      model.push(toolReply([{ name: "ls", args: {} }], { text: "Let me look first." }), textReply("Seen."));
      const { page } = await newPage();
      await openNew(page, base, "words");
      await send(page, "look");
      await page.locator("li.footer").waitFor();
      for (const when of ["live", "reloaded"]) {
        if (when === "reloaded") {
          await page.reload();
          await page.locator("li.footer, li.answer").first().waitFor();
        }
        expect(await page.locator("li.reasoning").count(), when).toBe(0);
        expect(await page.locator("li.text").filter({ hasText: "Let me look first." }).count(), when).toBe(1);
      }
      await page.close();
    },
    TEST_MS,
  );

  it(
    "records a permission as tool and command, live and after a reload",
    async () => {
      const { base } = await servePage(model);
      model.push(toolReply([{ name: "bash", args: { command: "node --test" } }]), textReply("Ran it."));
      const { page } = await newPage();
      await openNew(page, base, "permit");
      await send(page, "run the tests");
      await page.getByRole("dialog").getByRole("button", { name: "Allow once" }).click();
      await page.locator("li.footer").waitFor();
      const record = page.locator("li.note").filter({ hasText: "Permission allowed" });
      expect((await record.textContent())?.trim()).toBe("Permission allowed bash: node --test");
      await page.reload();
      await page.locator("li.answer").waitFor();
      // After a reload the record comes from the stored run's frames, through the same mapping.
      expect((await record.textContent())?.trim()).toBe("Permission allowed bash: node --test");
      await page.close();
    },
    TEST_MS,
  );

  it(
    "has the message box ready on arrival: the first message creates the session",
    async () => {
      const { base } = await servePage(model);
      model.push(textReply("Hello **there**."));
      const { page, errors } = await newPage();
      await page.goto(`${base}/`);
      await send(page, "hi from the start");
      await page.locator("li.answer").filter({ hasText: "Hello there." }).waitFor();
      expect(page.url()).toMatch(/#\/s\/.+/);
      await page.getByRole("navigation").getByRole("link").filter({ hasText: "hi from the start" }).waitFor();
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "filters the session list by title and first message",
    async () => {
      const { base } = await servePage(model);
      const { page } = await newPage();
      await openNew(page, base, "apples");
      await openNew(page, base, "pears");
      const links = page.getByRole("navigation").getByRole("link");
      await expect.poll(() => links.count()).toBe(2);
      await page.getByRole("searchbox", { name: "Search sessions" }).fill("APP");
      await expect.poll(() => links.allTextContents()).toEqual([expect.stringContaining("apples")]);
      await page.getByRole("searchbox", { name: "Search sessions" }).fill("nothing like it");
      await page.getByText("No session matches").waitFor();
      await page.close();
    },
    TEST_MS,
  );

  it(
    "answers its keyboard shortcuts: Esc stops, Alt+N starts anew, ? lists them",
    async () => {
      const { base } = await servePage(model);
      // Held mid-stream until Esc aborts it.
      model.push(
        textReply("word ".repeat(400), { chunkSize: 5, holdAfter: { deltas: 3, until: gate().until } }),
      );
      const { page, errors } = await newPage();
      await openNew(page, base, "keys");
      await send(page, "talk a lot");
      await page.getByRole("button", { name: "Stop" }).waitFor();
      await page.keyboard.press("Escape");
      await page.locator("li.footer").filter({ hasText: "aborted" }).waitFor();
      await page.keyboard.press("Alt+n");
      await expect.poll(() => page.url()).not.toMatch(/#\/s\//);
      await expect
        .poll(() => page.evaluate("document.activeElement?.getAttribute('aria-label')"))
        .toBe("Message");
      await page.locator("body").click({ position: { x: 900, y: 400 } });
      await page.keyboard.press("?");
      const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
      expect(await help.textContent()).toMatch(/Esc.*Stop/s);
      await page.keyboard.press("Escape");
      await help.waitFor({ state: "detached" });
      expect(errors).toEqual([]);
      await page.close();
    },
    TEST_MS,
  );

  it(
    "fits a 360 px phone: the sessions in a drawer, the message box full width; styled tables and code",
    async () => {
      const { base } = await servePage(model);
      model.push(
        textReply(
          "| file | lines |\n| --- | --- |\n| a.ts | 12 |\n\n```ts\nconst a = 1;\n```\n\nDone with `a`.",
        ),
      );
      const { page } = await newPage();
      await page.setViewportSize({ width: 360, height: 740 });
      await page.goto(`${base}/`);
      const box = page.getByRole("textbox", { name: "Message" });
      // Layout, not time: the box takes most of the phone's width once the page has laid it out.
      const boxWidth = async () => (await box.boundingBox())?.width ?? 0;
      await expect.poll(boxWidth).toBeGreaterThan(360 * MIN_BOX_SHARE);
      expect(await page.getByRole("navigation").isVisible()).toBe(false);
      await send(page, "a table please");
      await page.locator("li.answer table").waitFor();
      const border = (selector: string) =>
        page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).borderTopStyle`);
      expect(await border("li.answer td")).toBe("solid");
      expect(await border("li.answer pre")).toBe("solid");
      await screenshot(page, "phone", join(IMAGES, "web-phone.png"));
      await page.getByRole("button", { name: "Sessions" }).click();
      await page.getByRole("navigation").getByRole("link").first().waitFor();
      await page.setViewportSize({ width: 420, height: 740 });
      await page.keyboard.press("Escape");
      await expect.poll(boxWidth).toBeGreaterThan(420 * MIN_BOX_SHARE);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByRole("navigation").getByRole("link").first().waitFor();
      await screenshot(page, "wide", join(IMAGES, "web-wide.png"));
      await page.close();
    },
    TEST_MS,
  );

  it(
    "follows the system's dark mode",
    async () => {
      const { base } = await servePage(model);
      model.push(textReply("Dark and readable."));
      const { page } = await newPage();
      await page.emulateMedia({ colorScheme: "dark" });
      await openNew(page, base, "night");
      await send(page, "hello");
      await page.locator("li.answer").waitFor();
      expect(await page.evaluate("getComputedStyle(document.body).backgroundColor")).toBe("rgb(13, 17, 23)");
      await screenshot(page, "dark", join(IMAGES, "web-dark.png"));
      await page.emulateMedia({ colorScheme: "light" });
      expect(await page.evaluate("getComputedStyle(document.body).backgroundColor")).toBe(
        "rgb(255, 255, 255)",
      );
      await page.close();
    },
    TEST_MS,
  );
});
