// Debian's chromium driven by playwright-core (no browser download): one headless browser with a
// fresh profile per test file, a new page per test, screenshots under packages/web/test-output
// (gitignored). `.ci/run` installs chromium where it is missing.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll } from "vitest";

export const CHROMIUM = process.env.TERN_CHROMIUM ?? "/usr/bin/chromium";
export const SHOTS = fileURLToPath(new URL("../../test-output/", import.meta.url));

/** Flags for a quiet, reproducible headless chromium in a container. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Ceiling for a DOM state to appear (a hang, not a speed limit). */
export const WAIT_MS = 30_000;

let context: BrowserContext | undefined;
let profile: string | undefined;

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

export async function browser(): Promise<BrowserContext> {
  if (context) return context;
  if (!existsSync(CHROMIUM))
    throw new Error(`no chromium at ${CHROMIUM} (apt-get install chromium, or set TERN_CHROMIUM)`);
  profile = mkdtempSync(join(tmpdir(), "tern-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 860 },
  });
  context.setDefaultTimeout(WAIT_MS);
  return context;
}

/** A new tab; page errors fail the test that reads `errors`. */
export async function newPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await (await browser()).newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, errors };
}

export async function screenshot(page: Page, name: string, path?: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path ?? join(SHOTS, `${name}.png`) });
}
