// Reading SSE with Node's fetch (the streams where a test needs the raw bytes), and the real
// `eventsource` client for the rest.
import { EventSource } from "eventsource";

export interface Frame {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** Parses SSE text into frames (comments and retry lines skipped). */
export function parseSse(text: string): Frame[] {
  const frames: Frame[] = [];
  for (const block of text.split("\n\n")) {
    let id = "";
    let event = "message";
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("id: ")) id = line.slice(4);
      else if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data += line.slice(6);
    }
    if (data !== "") frames.push({ id, event, data: JSON.parse(data) });
  }
  return frames;
}

/** POSTs a message and reads the whole SSE answer. */
/** What the server reads bodies as (it refuses anything else). */
export const JSON_TYPE = { "content-type": "application/json" };

export async function postMessage(
  baseUrl: string,
  sessionId: string,
  content: string,
  headers = {},
): Promise<Frame[]> {
  const res = await fetch(`${baseUrl}/api/sessions/${sessionId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ content }),
  });
  if (res.status !== 200) throw new Error(`POST messages: ${res.status} ${await res.text()}`);
  return parseSse(await res.text());
}

/**
 * The real EventSource client on a run: the first request POSTs the message, reconnects GET
 * /events (EventSource sends Last-Event-ID itself). `cut` ends the n-th response's body after
 * `after` frames, as a dropped connection would. Resolves with every frame once `done` arrived.
 */
export function eventSourceRun(
  baseUrl: string,
  sessionId: string,
  content: string,
  options: { cut?: { after: number }; onFrame?: (frame: Frame) => void } = {},
): Promise<{ frames: Frame[]; requests: { url: string; lastEventId: string | null }[] }> {
  const frames: Frame[] = [];
  const requests: { url: string; lastEventId: string | null }[] = [];
  let cutDone = false;
  return new Promise((resolve, reject) => {
    const es = new EventSource(`${baseUrl}/api/sessions/${sessionId}/events`, {
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers);
        const first = requests.length === 0;
        const url = first ? `${baseUrl}/api/sessions/${sessionId}/messages` : String(input);
        requests.push({ url, lastEventId: headers.get("last-event-id") });
        if (!first) return fetch(url, init);
        headers.set("content-type", "application/json");
        const res = await fetch(url, { ...init, method: "POST", headers, body: JSON.stringify({ content }) });
        if (!options.cut || cutDone) return res;
        cutDone = true;
        return cutAfterFrames(res, options.cut.after);
      },
    });
    const seen = (event: MessageEvent, name: string) => {
      const frame: Frame = { id: event.lastEventId, event: name, data: JSON.parse(event.data as string) };
      frames.push(frame);
      options.onFrame?.(frame);
      if (name === "done") {
        es.close();
        resolve({ frames, requests });
      }
    };
    for (const name of ["step", "answer", "compact", "phase", "inject", "done"])
      es.addEventListener(name, (event) => seen(event as MessageEvent, name));
    es.addEventListener("error", (event) => {
      const code = (event as unknown as { code?: number }).code;
      if (code !== undefined && code >= 400) {
        es.close();
        reject(new Error(`EventSource failed with ${code}`));
      }
    });
  });
}

/** A response whose body stops (with an error) after `count` complete SSE frames. */
function cutAfterFrames(res: Response, count: number): Response {
  const reader = res.body!.getReader();
  let seen = 0;
  let pending = "";
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      const text = new TextDecoder().decode(value);
      let out = "";
      pending += text;
      let end = pending.indexOf("\n\n");
      while (end >= 0) {
        const block = pending.slice(0, end + 2);
        pending = pending.slice(end + 2);
        out += block;
        if (block.includes("\ndata: ") || block.startsWith("data: ")) seen++;
        if (seen >= count) {
          controller.enqueue(new TextEncoder().encode(out));
          await reader.cancel();
          controller.error(new Error("connection dropped by the test"));
          return;
        }
        end = pending.indexOf("\n\n");
      }
      if (out) controller.enqueue(new TextEncoder().encode(out));
    },
    cancel: () => reader.cancel(),
  });
  return new Response(body, { status: res.status, headers: res.headers });
}
