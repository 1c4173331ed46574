import { agentLoopBench, idleAgentsBench } from "./agent-loop.js";
import { providerParseBench } from "./provider-parse.js";
import { sessionBench } from "./session.js";

export type Rows = Record<string, string | number>[];

/** Every benchmark, by id; each runs in a fresh child process so memory figures are its own. */
export const BENCHES: Record<string, { title: string; run: () => Promise<Rows> }> = {
  "provider-parse": {
    title: "provider parse throughput (loopback HTTP, real provider code)",
    run: providerParseBench,
  },
  "agent-loop": { title: "agent loop overhead (faux provider, zero delay)", run: agentLoopBench },
  "idle-agents": { title: "memory of idle Agents", run: idleAgentsBench },
  session: { title: "session appends and load (10,000 entries)", run: sessionBench },
};
