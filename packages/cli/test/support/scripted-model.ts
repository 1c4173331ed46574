// The scripted loopback model of one test: started with the replies the test needs, closed after
// that test, and the environment that points a tern child at it as llamacpp/test-model.

import { type ScriptServer, type ScriptStep, serveScript } from "@tern/ai/testing";
import { afterEach } from "vitest";
import { tempDir, ternEnv } from "./tern.js";

const started: ScriptServer[] = [];

afterEach(async () => {
  for (const server of started.splice(0)) await server.close();
});

/** A loopback model that answers with `replies` in order; closed after the test that started it. */
export async function startScriptedModel(replies: ScriptStep[] = []): Promise<ScriptServer> {
  const server = await serveScript(replies);
  started.push(server);
  return server;
}

/**
 * A tern child's environment for the model at `server.baseUrl` (a scripted one, or an address that
 * must not answer), in a fresh TERN_HOME unless `extra` names one.
 */
export function scriptedModelEnv(
  server: Pick<ScriptServer, "baseUrl">,
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  return ternEnv({
    TERN_HOME: extra.TERN_HOME ?? tempDir(),
    TERN_PROVIDER: "llamacpp",
    TERN_MODEL: "test-model",
    TERN_BASE_URL: `${server.baseUrl}/v1`,
    ...extra,
  });
}
