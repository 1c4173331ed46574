// Shorthands for the replies tests script most: a streamed text answer, and tool calls after
// optional text. Both are plain FauxReply values, so they run in-process or over any wire.
import { type FauxReply, fauxText, fauxToolCall } from "../providers/faux.js";

export interface ReplyOptions {
  /** Pause before each streamed delta (or event, over HTTP). */
  delayMs?: number;
  /** Characters per streamed delta. Default 4. */
  chunkSize?: number;
  /** End the stream before the reply finished, as a server that died mid-reply. */
  cut?: boolean;
  /** Stream this many deltas (events, over HTTP), then wait for `until` before the rest. */
  holdAfter?: { deltas: number; until: Promise<unknown> };
  /** Token counts to report; unset counts are estimated. */
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
}

/** A streamed text answer. */
export function textReply(text: string, options: ReplyOptions = {}): FauxReply {
  return { content: text, ...options };
}

export interface ScriptedCall {
  name: string;
  args?: Record<string, unknown>;
  /** Default: a fresh `call_faux_<n>`. */
  id?: string;
}

/** Tool calls (a model may ask for several at once), after `text` when given. */
export function toolReply(calls: ScriptedCall[], options: ReplyOptions & { text?: string } = {}): FauxReply {
  const { text, ...rest } = options;
  const content = calls.map((call) => fauxToolCall(call.name, call.args ?? {}, call.id));
  return { content: text ? [fauxText(text), ...content] : content, ...rest };
}

/**
 * A step served only once `release()` is called, so a run waits at that model call for exactly as
 * long as the test needs to look at it (a step running, a page reloaded mid-run) — no slow stream
 * standing in for "long enough". A step function, so it works in every wire and in-process script.
 */
export function heldStep<T>(reply: T): { step: () => Promise<T>; release(): void } {
  const { until, release } = gate();
  return {
    step: async () => {
      await until;
      return reply;
    },
    release,
  };
}

/** A promise a test resolves when it is ready: `until` for a reply's `holdAfter`, say. */
export function gate(): { until: Promise<void>; release(): void } {
  let release!: () => void;
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { until, release };
}
