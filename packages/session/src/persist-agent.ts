// An Agent that persists through a session: every message, compaction, model change and persisted
// event goes to the session as the Agent's events arrive.
import { Agent, type AgentOptions } from "@tern/agent";
import { redactStream, stream } from "@tern/ai";
import { type RecorderOptions, SessionRecorder } from "./recorder.js";
import type { Session } from "./session.js";

export interface SessionBinding {
  readonly recorder: SessionRecorder;
  /** The first write failure; the agent was aborted when it happened. */
  readonly error: Error | undefined;
  /** Stops persisting (the session stays open). */
  detach(): void;
}

/**
 * Subscribes `session` to `agent`. A failed write aborts the agent: a run that cannot be
 * remembered should not go on acting.
 */
export function persistAgent(agent: Agent, session: Session, options: RecorderOptions = {}): SessionBinding {
  const recorder = new SessionRecorder(session, {
    settings: () => ({ model: agent.state.model, thinkingLevel: agent.state.thinkingLevel }),
    ...options,
    onError: (error) => {
      agent.abort();
      options.onError?.(error);
    },
  });
  const detach = agent.subscribe(recorder.handle);
  return {
    recorder,
    get error() {
      return recorder.error;
    },
    detach,
  };
}

export interface SessionAgent {
  agent: Agent;
  binding: SessionBinding;
}

/**
 * An Agent that starts from the session's context (messages and thinking level at the leaf) and
 * persists through it. `streamOptions.sessionId` defaults to the session id; the model's answers
 * and errors, and the run's spans (OpenTelemetry), are redacted with the session's secrets.
 */
export function createSessionAgent(
  session: Session,
  options: Omit<AgentOptions, "messages">,
  recorderOptions: RecorderOptions = {},
): SessionAgent {
  const context = session.buildContext();
  const agent = new Agent({
    ...options,
    thinkingLevel: options.thinkingLevel ?? context.thinkingLevel,
    streamOptions: { sessionId: session.id, ...options.streamOptions },
    // Answers (deltas included) and provider errors carry no secret the session knows.
    streamFn: redactStream(options.streamFn ?? stream, session.secrets),
    // Spans carry error messages (and content, when opted in): no secret the session hides.
    telemetry:
      options.telemetry === false
        ? false
        : { redact: (text) => session.redactText(text), ...options.telemetry },
    messages: context.messages,
  });
  return { agent, binding: persistAgent(agent, session, recorderOptions) };
}
