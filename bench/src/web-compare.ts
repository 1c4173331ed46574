// tern's web page next to OpenCode's web UI and pi's web-ui, in Debian's chromium, on one short
// task against one scripted loopback model (web-compare/model-server.ts): open the page, type a
// message, send it with Enter, watch the streamed answer. Per page and round, in a fresh browser
// (cold cache): load to interactive (navigation start to the message box visible), JS and CSS
// bytes transferred, send to the answer's first word painted and to its last word painted. Round
// one also takes the screenshots (docs/images/web-compare-<id>-{wide,phone}.png), checks the
// 360 px layout for sideways overflow, dark mode (prefers-color-scheme changes the background)
// and whether a reload shows the conversation again. Rounds are interleaved; medians and ranges.

import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { launchChromium } from "../../packages/web/test/support/chromium.js";
import { round } from "./measure.js";
import { FIRST_WORD, LAST_WORD, startWebModelServer } from "./web-compare/model-server.js";
import { type Running, WEB_PEERS, type WebPeer } from "./web-compare/peers.js";
import { median } from "./workloads/table.js";

const ROUNDS = 3;
const PROMPT = "Summarise the keepers' log, please.";
/** Ceiling for a page state to appear (a hang, not a speed limit: OpenCode's first session in a
 * project took 28 s to create at a load average of 27 here). */
const WAIT_MS = 90_000;
/** Ceiling for one page's whole round: a hang is a failure in the table, not a stuck bench. */
const ROUND_MS = 300_000;
const IMAGES = fileURLToPath(new URL("../../docs/images/", import.meta.url));

interface RoundResult {
  interactiveMs: number;
  jsBytes: number;
  cssBytes: number;
  firstTokenMs?: number;
  answerMs?: number;
}

interface Checks {
  fits360?: boolean;
  dark?: boolean;
  reloadKeeps?: boolean;
}

/** Resolves, in the page, with performance.now() of the first frame whose text (shadow roots included) has `word`. */
const painted = (word: string) => `new Promise((resolve) => {
  const has = (node) => {
    if (node.shadowRoot && has(node.shadowRoot)) return true;
    for (const child of node.childNodes)
      if (child.nodeType === 3 ? child.data.includes(${JSON.stringify(word)}) : has(child)) return true;
    return false;
  };
  const tick = () => (has(document.body) ? resolve(performance.now()) : requestAnimationFrame(tick));
  tick();
})`;

/** `promise`, or a rejection after WAIT_MS: an in-page wait has no ceiling of its own. */
const within = <T>(promise: Promise<T>, what: string, ceiling = WAIT_MS): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: not within ${ceiling} ms`)), ceiling).unref(),
    ),
  ]);

const now = (page: Page) => page.evaluate("performance.now()") as Promise<number>;

/** The usual send: Enter in the message box, timed from just before it. */
async function pressEnter(page: Page): Promise<number> {
  const sent = await now(page);
  await page.keyboard.press("Enter");
  return sent;
}

async function measureRound(
  peer: WebPeer,
  base: string,
  first: boolean,
  checks: Checks,
): Promise<RoundResult> {
  const browser = await launchChromium();
  browser.context.setDefaultTimeout(WAIT_MS);
  try {
    const page = await browser.context.newPage();
    const bytes = { script: 0, stylesheet: 0 };
    const sized: Promise<void>[] = [];
    page.on("requestfinished", (request) => {
      const type = request.resourceType();
      if (type === "script" || type === "stylesheet")
        sized.push(
          request.sizes().then((sizes) => {
            bytes[type] += sizes.responseBodySize + sizes.responseHeadersSize;
          }),
        );
    });
    const box = await peer.open(page, base);
    await box.waitFor({ state: "visible" });
    const interactiveMs = await now(page);
    const result: RoundResult = { interactiveMs, jsBytes: 0, cssBytes: 0 };
    await box.click();
    await page.keyboard.type(PROMPT);
    const firstShown = page.evaluate(painted(FIRST_WORD)) as Promise<number>;
    const lastShown = page.evaluate(painted(LAST_WORD)) as Promise<number>;
    // Both waits end with the browser; one left unawaited must not become an unhandled rejection.
    lastShown.catch(() => {});
    const sent = await (peer.send ? peer.send(page) : pressEnter(page));
    result.firstTokenMs = (await within(firstShown, "first token")) - sent;
    result.answerMs = (await within(lastShown, "answer")) - sent;
    // Not "networkidle": OpenCode's and tern's pages keep an event stream open.
    await page.waitForLoadState("load");
    await Promise.all(sized);
    result.jsBytes = bytes.script;
    result.cssBytes = bytes.stylesheet;
    if (first) await firstRoundChecks(peer, page, checks);
    return result;
  } finally {
    await browser.close();
  }
}

async function firstRoundChecks(peer: WebPeer, page: Page, checks: Checks): Promise<void> {
  const background = () =>
    page.evaluate(
      "getComputedStyle(document.body).backgroundColor + getComputedStyle(document.documentElement).backgroundColor",
    );
  await page.emulateMedia({ colorScheme: "light" });
  const light = await background();
  await page.emulateMedia({ colorScheme: "dark" });
  checks.dark = (await background()) !== light;
  await page.emulateMedia({ colorScheme: "light" });
  await page.screenshot({ path: `${IMAGES}web-compare-${peer.id}-wide.png` });
  await page.setViewportSize({ width: 360, height: 780 });
  await page.evaluate(
    "new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))",
  );
  checks.fits360 = (await page.evaluate("document.documentElement.scrollWidth <= 360")) as boolean;
  await page.screenshot({ path: `${IMAGES}web-compare-${peer.id}-phone.png` });
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.reload();
  checks.reloadKeeps = await within(page.evaluate(painted(LAST_WORD)), "reload")
    .then(() => true)
    .catch(() => false);
}

const ms = (values: number[]) =>
  values.length === 0
    ? "n/a"
    : `${round(median(values), 0)} (${round(Math.min(...values), 0)}–${round(Math.max(...values), 0)})`;
const kb = (values: number[]) => `${round(median(values) / 1024, 1)}`;
const yes = (value: boolean | undefined) => (value === undefined ? "n/a" : value ? "yes" : "no");

export async function webCompareBench() {
  const model = await startWebModelServer();
  const running = new Map<string, Running | Error>();
  const results = new Map<string, RoundResult[]>();
  const checks = new Map<string, Checks>();
  try {
    for (const peer of WEB_PEERS) {
      running.set(peer.id, await peer.start(model.url).catch((error: unknown) => error as Error));
      results.set(peer.id, []);
      checks.set(peer.id, {});
    }
    for (let r = 0; r < ROUNDS; r++)
      for (const peer of WEB_PEERS) {
        const server = running.get(peer.id)!;
        if (server instanceof Error) continue;
        try {
          const measured = measureRound(peer, server.url, r === 0, checks.get(peer.id)!);
          results.get(peer.id)!.push(await within(measured, "round", ROUND_MS));
        } catch (error) {
          running.set(peer.id, error as Error);
          await server.close();
        }
      }
  } finally {
    for (const server of running.values()) if (!(server instanceof Error)) await server.close();
    await model.close();
  }
  return WEB_PEERS.map((peer) => {
    const rows = results.get(peer.id)!;
    const server = running.get(peer.id);
    const check = checks.get(peer.id)!;
    const pick = (key: keyof RoundResult) =>
      rows.flatMap((row) => (row[key] === undefined ? [] : [row[key]!]));
    return {
      page: `${peer.id} ${peer.version}`,
      rounds: rows.length,
      "load to interactive ms": ms(pick("interactiveMs")),
      "JS KB": rows.length ? kb(pick("jsBytes")) : "n/a",
      "CSS KB": rows.length ? kb(pick("cssBytes")) : "n/a",
      "send to first token ms": ms(pick("firstTokenMs")),
      "send to answer done ms": ms(pick("answerMs")),
      "360 px fits": yes(check.fits360),
      "dark mode": yes(check.dark),
      "reload keeps": yes(check.reloadKeeps),
      note: server instanceof Error ? `failed: ${server.message.split("\n")[0]!.slice(0, 160)}` : "",
    };
  });
}
