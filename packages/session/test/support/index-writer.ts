// A child for the session index's concurrency test: writes `count` sessions into one directory,
// each with model calls, and lists the store after each one, so its index rewrites race the other
// child's. Prints "done" when it has written them all.
import { FileSessionStore } from "../../src/file-store.js";
import { callEnd } from "./usage-events.js";

const [home, cwd, prefix, count] = process.argv.slice(2) as [string, string, string, string];
const store = new FileSessionStore({ home });
for (let i = 0; i < Number(count); i++) {
  const session = await store.create({ cwd });
  session.appendEvent(callEnd(`${prefix}-model`, { input: 10 + i, output: 1, cost: 0.01 }));
  session.appendEvent(callEnd(`${prefix}-model`, { input: 5, output: 2, cost: 0 }, "compaction"));
  await session.close();
  await store.usage({ cwd });
}
process.stdout.write("done\n");
