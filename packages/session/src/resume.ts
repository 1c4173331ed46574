// Resume after a crash (or just later): open for writing, repair the interrupted tail, and hand
// back what `Agent.continue()` / `agentLoopContinue` need.
import { type RepairReport, repairSession } from "./repair.js";
import type { Session } from "./session.js";
import type { SessionContext, SessionStore } from "./types.js";

export interface ResumedSession {
  /** Open for writing: this process now holds the session's lock. Close it when done. */
  session: Session;
  /** The context at the leaf, after repair: `messages` seed the Agent / agentLoopContinue. */
  context: SessionContext;
  repair: RepairReport;
  /** The last run was interrupted and awaits the model: call `continue()`. */
  needsContinue: boolean;
  /** Events a client has not seen yet start after this sequence number. */
  lastEventSeq: number;
}

export async function resumeSession(
  store: SessionStore,
  id: string,
  options: { now?: () => number } = {},
): Promise<ResumedSession> {
  const session = await store.open(id);
  try {
    const repair = await repairSession(session, options.now);
    return {
      session,
      context: session.buildContext(),
      repair,
      needsContinue: repair.needsContinue,
      lastEventSeq: session.lastEventSeq,
    };
  } catch (error) {
    await session.close();
    throw error;
  }
}
