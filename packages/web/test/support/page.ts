// What the page's tests do again and again: start `tern serve` (or two cluster nodes of it)
// against the scripted model, open the page and start a session from its form, send a message.

import type { ScriptServer } from "@tern/ai/testing";
import type { Page } from "playwright-core";
import { startServe } from "../../../cli/test/support/serve.js";
import { spawnTern, type TernProcess, tempDir, ternEnv } from "../../../cli/test/support/tern.js";
import { freshDatabase } from "../../../session/test/support/postgres.js";

/** A `tern serve` child on a free port, its model the scripted one, tools unsandboxed in `work`. */
export async function servePage(model: ScriptServer, extra: string[] = [], home = tempDir()) {
  const work = tempDir();
  return { ...(await startServe(serveArgs(model, extra, home, work))), work };
}

function serveArgs(model: ScriptServer, extra: string[], home: string, work: string): string[] {
  return [
    ...["--port", "0", "--base-url", `${model.baseUrl}/v1`, "--model", "scripted"],
    ...["--home", home, "--cwd", work, "--sandbox", "off"],
    ...extra,
  ];
}

/** A cluster node's start migrates a fresh database: on a loaded machine, a ceiling for hangs. */
const NODE_START_MS = 120_000;

/**
 * Two `tern serve --store postgres://…` nodes (each also a worker) on a fresh database of the
 * PostgreSQL at `pgUrl`, sharing `home` and the work directory: `base` is one, `other` the other;
 * `stop` kills both.
 */
export async function serveClusterPage(
  model: ScriptServer,
  pgUrl: string,
  extra: string[] = [],
  home = tempDir(),
) {
  const url = await freshDatabase(pgUrl);
  const work = tempDir();
  // One after the other: the first migrates the database, the second finds it ready.
  const nodes: TernProcess[] = [];
  const stop = async () => {
    for (const proc of nodes) {
      proc.child.kill("SIGKILL");
      await proc.done;
    }
  };
  try {
    for (let i = 0; i < 2; i++) {
      const proc = spawnTern(["serve", ...serveArgs(model, ["--store", url, ...extra], home, work)], {
        env: ternEnv(),
      });
      nodes.push(proc);
      await proc.waitFor(/http listening on \S+/, "stdout", NODE_START_MS);
    }
  } catch (error) {
    await stop();
    throw new Error(`a cluster node did not start: ${String(error)}\n${nodes.at(-1)?.stderr ?? ""}`);
  }
  const [one, two] = nodes.map((proc) => ({ proc, base: /http listening on (\S+)/.exec(proc.stdout)![1]! }));
  return { ...one!, work, other: two!.base, stop, database: url };
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
