// The Copilot SDK suite (support/copilot-sdk-suite.ts) against one `serve --rpc-port` over an
// in-process engine with a scripted model.
import { type JsonRpcServer, serveJsonRpc } from "../src/rpc/serve.js";
import { copilotSdkSuite } from "./support/copilot-sdk-suite.js";
import { testEngine } from "./support/engine.js";

copilotSdkSuite({
  name: "tern serve --rpc-port",
  clientTools: true,
  start: async (options, token) => {
    const env = testEngine(options);
    const server: JsonRpcServer = await serveJsonRpc({
      engine: env.engine,
      port: 0,
      ...(token ? { token } : {}),
    });
    return {
      port: server.port!,
      otherPort: server.port!,
      faux: env.faux,
      history: (id) => env.engine.history(id),
      close: async () => {
        await server.close();
        await env.close();
      },
    };
  },
});
