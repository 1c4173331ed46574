// The page's tests' browser: one chromium (chromium.ts) per test file, a new tab per test,
// screenshots under packages/web/test-output (gitignored).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll } from "vitest";
import { launchChromium } from "./chromium.js";

export const SHOTS = fileURLToPath(new URL("../../test-output/", import.meta.url));

/**
 * Ceiling for a DOM state to appear (a hang, not a speed limit). A cluster's run under two CPU
 * hogs can take tens of seconds to show; below the files' per-test ceilings (120 s and more), so
 * a hang still fails with the locator it waited for.
 */
export const WAIT_MS = 90_000;

let launched: Awaited<ReturnType<typeof launchChromium>> | undefined;

afterAll(async () => {
  await launched?.close();
});

async function browser(): Promise<BrowserContext> {
  launched ??= await launchChromium();
  launched.context.setDefaultTimeout(WAIT_MS);
  return launched.context;
}

/** A new tab; page errors are collected in `errors`. */
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
