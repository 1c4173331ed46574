// The pages of `npm run bench web-compare`, each brought up on 127.0.0.1 against the loopback
// model: tern's (`tern serve`), OpenCode's (`opencode serve`, whose binary embeds its web app)
// and pi's web-ui (the package's example app, built by pi-site.ts, on a static server; its
// agent runs in the page and calls the model from the browser). Peers are installed on demand
// into bench/.peers/ (git-ignored) by clis/install.ts, never by the project's `npm ci`.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Locator, Page } from "playwright-core";
import { ensureInstalled } from "../clis/install.js";
import { homeEnv as cliHomeEnv } from "../clis/peers.js";
import { MODEL } from "./model-server.js";
import { buildPiSite } from "./pi-site.js";
import { serveStatic } from "./static-server.js";

const TERN_JS = fileURLToPath(new URL("../../../packages/cli/dist/tern.js", import.meta.url));
const PEERS_DIR = fileURLToPath(new URL("../../.peers/", import.meta.url));
/** Ceiling for a server to print its address (a hang, not a speed limit). */
const START_MS = 120_000;

export interface Running {
  url: string;
  close(): Promise<void>;
}

export interface WebPeer {
  id: string;
  version: string;
  start(modelUrl: string): Promise<Running>;
  /** Opens the page's start in `page`; returns its message box. */
  open(page: Page, base: string): Promise<Locator>;
  /** Sends the typed message; resolves with performance.now() of the moment it was sent. */
  send?(page: Page): Promise<number>;
}

/** Spawns a server and resolves with the first address it prints that `pattern` captures. */
function spawnServer(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, pattern: RegExp) {
  const child: ChildProcess = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address in ${START_MS} ms: ${output}`)), START_MS);
    const onData = (data: Buffer) => {
      output += data.toString();
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  const close = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
  };
  return url.then(
    (address) => ({ url: address.replace(/\/$/, ""), close }),
    async (error: unknown) => {
      await close();
      throw error;
    },
  );
}

function scratch(id: string): { dir: string; work: string; drop(): void } {
  const dir = mkdtempSync(join(tmpdir(), `tern-web-compare-${id}-`));
  const work = join(dir, "work");
  mkdirSync(work);
  writeFileSync(join(work, "README.md"), "# keepers\n");
  execFileSync("git", ["init", "-q", work]);
  // A commit: OpenCode names a project by its first commit; a repository without one is its
  // "global" project, whose new sessions open at / instead of here.
  const git = ["-C", work, "-c", "user.name=bench", "-c", "user.email=bench@localhost"];
  execFileSync("git", [...git, "add", "README.md"]);
  execFileSync("git", [...git, "commit", "-q", "-m", "keepers"]);
  return { dir, work, drop: () => rmSync(dir, { recursive: true, force: true }) };
}

const withDrop = (running: Running, drop: () => void): Running => ({
  url: running.url,
  close: async () => {
    await running.close();
    drop();
  },
});

/** A peer's own HOME (clis/peers.ts), and this process's PATH so it can find git and node. */
const homeEnv = (home: string): NodeJS.ProcessEnv => ({ ...cliHomeEnv(home), PATH: process.env.PATH });

const tern: WebPeer = {
  id: "tern",
  version: "this checkout",
  async start(modelUrl) {
    const s = scratch("tern");
    const args = [TERN_JS, "serve", "--port", "0", "--base-url", `${modelUrl}/v1`, "--model", MODEL];
    args.push("--home", join(s.dir, ".tern"), "--cwd", s.work, "--sandbox", "off");
    return withDrop(
      await spawnServer(process.execPath, args, s.work, homeEnv(s.dir), /http listening on (\S+)/),
      s.drop,
    );
  },
  async open(page, base) {
    await page.goto(`${base}/`);
    return page.getByRole("textbox", { name: "Message" });
  },
};

const OPENCODE = { name: "opencode-ai", version: "1.18.33", bin: "opencode" };

const opencode: WebPeer = {
  id: "opencode",
  version: OPENCODE.version,
  async start(modelUrl) {
    const installed = await ensureInstalled("opencode", OPENCODE);
    if (!installed.ok) throw new Error(installed.reason);
    const s = scratch("opencode");
    const config = {
      provider: {
        bench: {
          npm: "@ai-sdk/openai-compatible",
          name: "bench",
          options: { baseURL: `${modelUrl}/v1`, apiKey: "bench" },
          models: { [MODEL]: { name: MODEL, tool_call: true } },
        },
      },
      model: `bench/${MODEL}`,
      permission: { "*": "allow" },
      share: "disabled",
      autoupdate: false,
    };
    const env = {
      ...homeEnv(s.dir),
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    };
    const args = ["serve", "--port", "0", "--hostname", "127.0.0.1"];
    return withDrop(await spawnServer(installed.bin, args, s.work, env, /listening on (\S+)/), s.drop);
  },
  async open(page, base) {
    await page.goto(`${base}/`);
    // As a user opens a project: "Add project", then the folder picked from a listing of ~/
    // (the work folder sits in the peer's HOME). Searching by name instead stays at "Loading":
    // its file finder refuses a home directory and the dialog shows an empty answer as loading.
    await page.getByText("Add project").click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("textbox").fill("~/");
    await dialog.locator("[data-slot=list-item]").filter({ hasText: "work" }).first().click();
    await page.getByRole("button", { name: "New session", exact: true }).last().click();
    return page.getByRole("textbox", { name: "Prompt" });
  },
};

const PI_WEB_UI = { name: "@mariozechner/pi-web-ui", version: "0.73.1", bin: "" };

const pi: WebPeer = {
  id: "pi-web-ui",
  version: PI_WEB_UI.version,
  async start(modelUrl) {
    // xlsx is a tarball URL off the npm registry in pi-web-ui's dependencies; the registry's
    // own xlsx 0.18.5 stands in (it only parses spreadsheet attachments).
    const installed = await ensureInstalled("pi-web-ui", PI_WEB_UI, { xlsx: "0.18.5" });
    if (!installed.ok) throw new Error(installed.reason);
    const prefix = join(PEERS_DIR, "pi-web-ui");
    const site = join(prefix, "site");
    await buildPiSite(prefix, site, modelUrl);
    return serveStatic(site);
  },
  async open(page, base) {
    await page.goto(`${base}/`);
    return page.locator("textarea").first();
  },
  // The first send asks for the provider's API key (its store opens only then, so it cannot be
  // filled in before); the message goes out when the key dialog is saved, so that is "sent".
  async send(page) {
    await page.keyboard.press("Enter");
    await page.locator("input[type=password]").fill("bench");
    const sent = (await page.evaluate("performance.now()")) as number;
    await page.getByRole("button", { name: "Save" }).click();
    return sent;
  },
};

export const WEB_PEERS: WebPeer[] = [tern, opencode, pi];
