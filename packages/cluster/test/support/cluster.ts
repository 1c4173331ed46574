// One test file's cluster: a throwaway PostgreSQL, the scripted model, a home directory for the
// nodes and the node processes; `dispose` stops them all (the nodes first, as they use the rest).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestPostgres, type TestPostgres } from "../../../session/test/support/postgres.js";
import { type ModelServer, startModelServer } from "./model-server.js";
import { type NodeSetup, Nodes } from "./nodes.js";

export interface TestCluster {
  pg: TestPostgres;
  model: ModelServer;
  home: string;
  /** No node runs yet: each test spawns those it needs. */
  nodes: Nodes;
  dispose(): Promise<void>;
}

export type TestClusterOptions = Omit<NodeSetup, "pgUrl" | "home" | "modelUrl"> & {
  /** The model's wait before each reply. */
  modelDelayMs: number;
};

export async function startTestCluster({ modelDelayMs, ...setup }: TestClusterOptions): Promise<TestCluster> {
  const pg = await startTestPostgres();
  let model: ModelServer;
  try {
    model = await startModelServer(modelDelayMs);
  } catch (error) {
    await pg.dispose();
    throw error;
  }
  const home = mkdtempSync(join(tmpdir(), "tern-cluster-"));
  const nodes = new Nodes({ pgUrl: pg.url, home, modelUrl: model.baseUrl, ...setup });
  return {
    pg,
    model,
    home,
    nodes,
    async dispose() {
      nodes.killAll();
      await model.close();
      await pg.dispose();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
