// A model call whose answer carries no secret: text and thinking deltas pass through the
// redactor's stream form (a key the model sends in two deltas is still caught, the tail a delta
// holds back comes out before its block ends), each event's `partial` shows the redacted text so
// far, and the final message's text, thinking and error message are redacted whole. Tool call
// arguments are left as the model wrote them: a tool may need the value.
import type { RedactingStream, Redactor } from "./redactor.js";
import type { AssistantEvent, AssistantMessage, StreamFunction } from "./types.js";

/** `inner` with every answer redacted by `redactor` (secrets it learns later count from then on). */
export function redactStream(inner: StreamFunction, redactor: Redactor): StreamFunction {
  return (model, context, options) => {
    const events = inner(model, context, options);
    const call = new RedactedCall(redactor);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const event of events) yield* call.redact(event);
      },
      result: async () => call.message(await events.result()),
    };
  };
}

/** One call's state: a stream per text or thinking block, and the redacted text each has shown. */
class RedactedCall {
  private readonly open = new Map<number, RedactingStream>();
  private readonly shown = new Map<number, string>();

  constructor(private readonly redactor: Redactor) {}

  redact(event: AssistantEvent): AssistantEvent[] {
    switch (event.type) {
      case "text_delta":
      case "thinking_delta": {
        const delta = this.streamOf(event.contentIndex).push(event.delta);
        if (delta === "") return [];
        this.show(event.contentIndex, delta);
        return [{ ...event, delta, partial: this.partial(event.partial) }];
      }
      case "text_end":
      case "thinking_end": {
        const index = event.contentIndex;
        const tail = this.open.get(index)?.end() ?? "";
        this.open.delete(index);
        const out: AssistantEvent[] = [];
        if (tail !== "") {
          this.show(index, tail);
          const type = event.type === "text_end" ? "text_delta" : "thinking_delta";
          out.push({ type, contentIndex: index, delta: tail, partial: this.partial(event.partial) });
        }
        this.shown.set(index, this.redactor.text(event.content));
        out.push({ ...event, content: this.shown.get(index)!, partial: this.partial(event.partial) });
        return out;
      }
      case "done":
        return [{ ...event, message: this.message(event.message) }];
      case "error":
        return [{ ...event, error: this.message(event.error) }];
      default:
        return [{ ...event, partial: this.partial(event.partial) }];
    }
  }

  /** The final message: text, thinking and error message redacted whole. */
  message(message: AssistantMessage): AssistantMessage {
    const content = message.content.map((part) => {
      if (part.type === "text") return { ...part, text: this.redactor.text(part.text) };
      if (part.type === "thinking") return { ...part, thinking: this.redactor.text(part.thinking) };
      return part;
    });
    const out: AssistantMessage = { ...message, content };
    if (message.errorMessage !== undefined) out.errorMessage = this.redactor.text(message.errorMessage);
    return out;
  }

  private streamOf(index: number): RedactingStream {
    const known = this.open.get(index);
    if (known) return known;
    const fresh = this.redactor.stream();
    this.open.set(index, fresh);
    return fresh;
  }

  private show(index: number, delta: string): void {
    this.shown.set(index, (this.shown.get(index) ?? "") + delta);
  }

  /** The provider's snapshot with each text and thinking block as redacted so far. */
  private partial(partial: AssistantMessage): AssistantMessage {
    const content = partial.content.map((part, index) => {
      if (part.type === "text") return { ...part, text: this.shown.get(index) ?? "" };
      if (part.type === "thinking") return { ...part, thinking: this.shown.get(index) ?? "" };
      return part;
    });
    return { ...partial, content };
  }
}
