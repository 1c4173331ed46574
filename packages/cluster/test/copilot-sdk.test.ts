// The Copilot SDK suite (server/test/support/copilot-sdk-suite.ts) against a two-node cluster in
// this process: two serve nodes (`@tern/server`'s engine and JSON-RPC over the queued host, each
// with its own session store connection) and a worker running the scripted model, on a fresh
// database of the run's shared PostgreSQL. A run is submitted on one node; the suite resumes it on
// the other. Client tools and hooks must be refused there, naming the limit.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Model } from "@tern/ai";
import { createFaux } from "@tern/ai/testing";
import { Engine, type ModelCatalog, modelCatalog, serveJsonRpc } from "@tern/server";
import { PgSessionStore } from "@tern/store-pg";
import { copilotSdkSuite } from "../../server/test/support/copilot-sdk-suite.js";
import { sharedPostgres } from "../../session/test/support/shared-postgres.js";
import { startQueuedHost, startWorker } from "../src/index.js";

const LEASE_MS = 5000;

/** One serve node: its own store connection, queued host, engine and JSON-RPC port. */
async function startNode(url: string, models: ModelCatalog, cwd: string, token?: string) {
  // The engine picks new sessions' ids (a Copilot client chooses its own): the store asks it.
  let ids: (() => string) | undefined;
  const store = await PgSessionStore.connect({
    url,
    leaseMs: LEASE_MS,
    newSessionId: () => ids?.() ?? randomUUID(),
  });
  const queued = await startQueuedHost({ connectionString: url, store });
  const engine = new Engine({
    models,
    cwd,
    host: queued.host,
    store: (newSessionId) => {
      ids = newSessionId;
      return store;
    },
  });
  const rpc = await serveJsonRpc({ engine, port: 0, ...(token ? { token } : {}) });
  return {
    port: rpc.port!,
    close: async () => {
      await rpc.close({ engine: true });
      await queued.close();
      await store.close();
    },
  };
}

copilotSdkSuite({
  name: "a two-node cluster (serve nodes over the queued host, a worker, one PostgreSQL)",
  clientTools: false,
  start: async (options = {}, token) => {
    const url = await sharedPostgres();
    const faux = createFaux(options.faux);
    const models = modelCatalog([faux.model as Model]);
    const home = mkdtempSync(join(tmpdir(), "tern-cluster-sdk-"));
    const store = await PgSessionStore.connect({ url, leaseMs: LEASE_MS });
    const worker = await startWorker({
      connectionString: url,
      store,
      engine: { models, configureAgent: () => options.agent ?? {} },
      leaseMs: LEASE_MS,
      heartbeatMs: LEASE_MS / 4,
    });
    const nodes = [await startNode(url, models, home, token), await startNode(url, models, home, token)];
    return {
      port: nodes[0]!.port,
      otherPort: nodes[1]!.port,
      faux,
      history: async (id) => (await store.load(id)).eventsAfter(0),
      close: async () => {
        for (const node of nodes) await node.close();
        await worker.stop();
        await store.close();
        rmSync(home, { recursive: true, force: true });
      },
    };
  },
});
