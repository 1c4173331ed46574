// What the page's tests do again and again: start `tern serve` against the scripted model, open
// the page and start a session from its form, send a message.
import type { Page } from "playwright-core";
import type { LoopbackServer } from "../../../cli/test/support/openai-script.js";
import { startServe } from "../../../cli/test/support/serve.js";
import { tempDir } from "../../../cli/test/support/tern.js";

/** A `tern serve` child on a free port, its model the scripted one, tools unsandboxed in `work`. */
export async function servePage(model: LoopbackServer, extra: string[] = [], home = tempDir()) {
  const work = tempDir();
  const served = await startServe([
    ...["--port", "0", "--base-url", `${model.baseUrl}/v1`, "--model", "scripted"],
    ...["--home", home, "--cwd", work, "--sandbox", "off"],
    ...extra,
  ]);
  return { ...served, work };
}

/** Opens the page, starts a session from the form (with a strategy, if given) and waits until it is open. */
export async function openNew(page: Page, base: string, name = "web test", strategy?: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByLabel("Name").fill(name);
  if (strategy) await page.getByLabel("Strategy").selectOption(strategy);
  await page.getByRole("button", { name: "New session" }).click();
  await page.getByRole("heading", { level: 1, name }).waitFor();
}

export async function send(page: Page, text: string): Promise<void> {
  await page.getByRole("textbox", { name: "Message" }).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}
