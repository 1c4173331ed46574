// Child process of the crash test: runs agent sessions back to back, persisting through the file
// store (or, given a URL, the PostgreSQL store), until it is killed. Prints to stdout
// (synchronously, once the line is acknowledged: in the file, or committed at the turn's flush):
//   session <id>            a session was created
//   message <id> <entryId>  a message_end was written
//   done <id>               the session's runs all finished
import { writeSync } from "node:fs";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { FileSessionStore } from "../../src/file-store.js";
import { createSessionAgent } from "../../src/persist-agent.js";
import { slowEcho } from "./agent.js";

const [home, seedText, pgUrl, leaseMs] = process.argv.slice(2);
let seed = Number(seedText ?? 1);
const random = () => {
  // xorshift: reproducible per child
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const print = (line: string) => writeSync(1, `${line}\n`);

// Imported only on the PostgreSQL path: the file store's children, most of them, skip loading pg.
const store = pgUrl
  ? await (await import("@tern/store-pg")).PgSessionStore.connect({ url: pgUrl, leaseMs: Number(leaseMs) })
  : new FileSessionStore({ home: home!, fsync: "turn" });
print("ready");
for (let n = 0; ; n++) {
  const session = await store.create({ cwd: "/crash-test" });
  print(`session ${session.id}`);
  const calls = 1 + Math.floor(random() * 3);
  const faux = createFaux({
    tokenDelayMs: 1,
    replies: [
      {
        content: Array.from({ length: calls }, (_, i) =>
          fauxToolCall("echo", { text: `run ${n} call ${i}` }),
        ),
      },
      { content: [fauxToolCall("echo", { text: "second turn" })] },
      "first run done",
      { content: [fauxToolCall("echo", { text: "second run" })] },
      "second run done",
    ],
  });
  const { agent } = createSessionAgent(
    session,
    { model: faux.model, tools: [slowEcho(2 + Math.floor(random() * 10))] },
    {
      onMessageEntry: (entry) =>
        pgUrl ? acknowledged.push(entry.id) : print(`message ${session.id} ${entry.id}`),
    },
  );
  // A file line is in the file when its append returns; a database line once a flush committed it.
  const acknowledged: string[] = [];
  agent.subscribe(async (event) => {
    if (!pgUrl || (event.type !== "turn_end" && event.type !== "agent_end")) return;
    await session.flush();
    for (const id of acknowledged.splice(0)) print(`message ${session.id} ${id}`);
  });
  await agent.prompt(`task ${n}`);
  await agent.prompt(`follow-up ${n}`);
  await session.close();
  print(`done ${session.id}`);
}
