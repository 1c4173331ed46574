// The scripted loopback model of one test: started with the replies the test needs, closed after
// that test, and the environment that points a tern child at it as llamacpp/test-model.
import { afterEach } from "vitest";
import { type Exchange, type LoopbackServer, startLoopbackServer } from "./openai-script.js";
import { tempDir, ternEnv } from "./tern.js";

const started: LoopbackServer[] = [];

afterEach(async () => {
  for (const server of started.splice(0)) await server.close();
});

/** A loopback model that answers with `replies` in order; closed after the test that started it. */
export async function startScriptedModel(replies: Exchange[] = []): Promise<LoopbackServer> {
  const server = await startLoopbackServer(replies);
  started.push(server);
  return server;
}

/**
 * A tern child's environment for the model at `server.baseUrl` (a scripted one, or an address that
 * must not answer), in a fresh TERN_HOME unless `extra` names one.
 */
export function scriptedModelEnv(
  server: Pick<LoopbackServer, "baseUrl">,
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
