// Stop on a served session, at the engine: a Stop that lands before the run's model request
// sends nothing, so the reply meant for the stopped run is still the model's next one; a Stop once
// the model answers ends the run as aborted. Either way the session's next run goes on. (The web
// page's cluster test once clicked Stop before the worker asked the model, and took the second
// run's answer, the first run's reply, for a lost one.)
import { fauxText } from "@tern/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { ServerEvent } from "../src/types.js";
import { type TestEngine, testEngine } from "./support/engine.js";

let env: TestEngine | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

/** The answers the session's runs ended with, and whether each was aborted. */
function runEnds(events: readonly ServerEvent[]) {
  return events.flatMap((event) =>
    event.type === "agent_end" ? [{ stopReason: event.stopReason, answer: event.answer }] : [],
  );
}

async function served(replies: NonNullable<Parameters<typeof testEngine>[0]>["faux"]) {
  env = testEngine({ faux: replies });
  const session = await env.engine.create();
  const events: ServerEvent[] = [];
  session.journal.subscribe((entry) => events.push(entry.event));
  return { session, events, faux: env.faux };
}

describe("Stop on a served session", () => {
  it("before the model request: nothing is sent, and the next run gets the reply the stopped one never asked for", async () => {
    const { session, events, faux } = await served({ replies: ["The first reply.", "The second reply."] });
    session.run("talk a lot");
    expect(session.abort()).toBe(true);
    await session.idle();
    expect(faux.requests).toHaveLength(0);
    expect(events.filter((event) => event.type === "idle")).toEqual([{ type: "idle", aborted: true }]);

    session.run("go on");
    await session.idle();
    expect(runEnds(events)).toEqual([
      { stopReason: "aborted", answer: "" },
      { stopReason: "stop", answer: "The first reply." },
    ]);
    expect(faux.pending).toBe(1);
  });

  it("once the model has the request: the run ends aborted, and the session answers the next prompt", async () => {
    let stop = () => {};
    const { session, events, faux } = await served({
      replies: [
        // The model has the request and starts to answer; the Stop comes while it streams.
        () => {
          stop();
          return { content: [fauxText("word ".repeat(400))] };
        },
        "Back again.",
      ],
    });
    stop = () => session.abort();
    session.run("talk a lot");
    await session.idle();
    session.run("go on");
    await session.idle();
    expect(faux.requests).toHaveLength(2);
    expect(runEnds(events)).toMatchObject([
      { stopReason: "aborted" },
      { stopReason: "stop", answer: "Back again." },
    ]);
    expect(events.filter((event) => event.type === "idle")).toEqual([
      { type: "idle", aborted: true },
      { type: "idle", aborted: false },
    ]);
  });
});
