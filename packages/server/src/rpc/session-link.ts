// One JSON-RPC connection attached to one session: the session's events go out as
// `session.event` notifications (Copilot envelopes), the client's tools, permission answers and
// hooks come in. Deltas are sent only to clients that asked for streaming, as Copilot does.

import type { HostedSession } from "../engine/run-host.js";
import { CopilotStream } from "../mappings/copilot-envelope.js";
import type { ClientAttachment, ClientToolSpec } from "../types.js";
import type { JsonRpcPeer } from "./peer.js";

const DELTAS = new Set(["assistant.message_delta", "assistant.reasoning_delta"]);

export interface LinkConfig {
  tools: ClientToolSpec[];
  requestPermission: boolean;
  hooks: boolean;
  streaming: boolean;
}

export class SessionLink {
  readonly attachment: ClientAttachment;
  private readonly stream: CopilotStream;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly peer: JsonRpcPeer,
    readonly session: HostedSession,
    private readonly config: LinkConfig,
  ) {
    this.stream = new CopilotStream(session.id);
    this.attachment = {
      tools: config.tools,
      requestPermission: config.requestPermission,
      ...(config.hooks
        ? {
            invokeHook: async (hookType, input) => {
              const result = await peer.request("hooks.invoke", { sessionId: session.id, hookType, input });
              return (result as { output?: unknown } | null)?.output;
            },
          }
        : {}),
    };
    session.attach(this.attachment);
    this.unsubscribe = session.journal.subscribe((entry) => {
      for (const event of this.stream.fromJournal(entry)) {
        if (!this.config.streaming && DELTAS.has(event.type)) continue;
        this.peer.notify("session.event", { sessionId: session.id, event });
      }
    });
  }

  /** Stops forwarding and detaches the client (if it is still the attached one). */
  close(): void {
    this.unsubscribe();
    this.session.detach(this.attachment);
  }
}
