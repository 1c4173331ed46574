// Debian's chromium under playwright-core (no browser download), headless with a fresh profile:
// what the page's tests and its benchmark (bench/src/web-paint.ts) launch.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = process.env.TERN_CHROMIUM ?? "/usr/bin/chromium";

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

/** A browser with a fresh user-data-dir, removed when it closes. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no chromium at ${CHROMIUM} (apt-get install chromium, or set TERN_CHROMIUM)`);
  const profile = mkdtempSync(join(tmpdir(), "tern-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 860 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
