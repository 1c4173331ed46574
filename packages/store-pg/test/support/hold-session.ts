// Child process for the takeover test: opens a PostgreSQL session for writing (taking its lease),
// appends a line, and holds it (the heartbeat renews the lease) until killed.
import { PgSessionStore } from "../../src/pg-store.js";

const [url, id, leaseMs] = process.argv.slice(2);
const store = await PgSessionStore.connect({ url: url!, leaseMs: Number(leaseMs) });
const session = await store.open(id!);
session.appendCustom("child", { pid: process.pid });
await session.flush();
process.stdout.write("ready\n");
setInterval(() => {}, 60_000);
