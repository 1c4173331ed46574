// preloadProvider: a host may warm a built-in provider before its first request; the request then
// streams as usual, and a warm-up for an api nobody knows changes nothing.
import { afterEach, describe, expect, it } from "vitest";
import { preloadProvider, stream } from "../src/index.js";
import { createFaux, type ScriptServer, serveScript, textReply } from "../src/testing/index.js";

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("preloadProvider", () => {
  it("warms the provider a model needs, and its first request streams as without it", async () => {
    server = await serveScript([textReply("warm")]);
    const model = server.model();
    preloadProvider(model.api);
    preloadProvider(model.api);
    const message = await stream(model, { messages: [] }, { apiKey: "test-key" }).result();
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "warm" }]);
    expect(server.requests).toHaveLength(1);
  });

  it("ignores an api with no built-in provider; stream() still reports it", async () => {
    preloadProvider("no-such-api");
    const faux = createFaux();
    const message = await stream({ ...faux.model, api: "no-such-api" as "faux" }, { messages: [] }).result();
    expect(message).toMatchObject({ stopReason: "error", errorKind: "invalid_request" });
    expect(message.errorMessage).toMatch(/No provider for api "no-such-api"/);
  });
});
