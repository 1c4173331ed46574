// `tern demo --web`: the offline demo in the browser. The demo's scripted model and settings run
// behind the same HTTP server and page as `tern serve` (loopback only, no token); the demo's
// session starts at once, and the page replays it from its start, so opening it late misses
// nothing. Runs until Ctrl-C.
import type { Model } from "@tern/ai";
import { Engine, modelCatalog, startServer } from "@tern/server";
import { UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import type { AgentSettings } from "../config/settings.js";
import { servedWorkspaces } from "../config/workspace-settings.js";
import { servedAgent } from "../runtime/served.js";
import { webLine, webRoot } from "../runtime/web-root.js";
import { DEMO_PROMPT } from "./script.js";

const SESSION_NAME = "tern demo: fix the failing test";

export async function demoWeb(options: {
  settings: AgentSettings;
  model: Model;
  io: Io;
  port: number;
  say: (line: string) => void;
  warn: (message: string) => void;
}): Promise<0> {
  const { settings, model, io, say, warn } = options;
  const page = webRoot();
  if (page === undefined)
    throw new UsageError("demo --web: this tern has no web page (build it with `npm run build`)");
  const engine = new Engine({
    models: modelCatalog([model]),
    ...(settings.home !== undefined ? { home: settings.home } : {}),
    cwd: settings.cwd,
    allowRoots: [settings.cwd],
    configureAgent: servedAgent(settings, await servedWorkspaces(settings, warn), { env: io.env, warn }),
  });
  const http = await startServer({ engine, port: options.port, webRoot: page });
  const session = await engine.create({ name: SESSION_NAME });
  session.run(DEMO_PROMPT);
  say(`http listening on ${http.url}`);
  io.stdout.write(`${webLine(http.url, false, `#/s/${session.id}`)}\n`);
  say("Ctrl-C stops the server (the session stays saved).");
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await http.close({ engine: true });
  return 0;
}
