// Child process for the two-writers test: opens a session file for writing and holds it until killed.
import { openFileSession } from "../../src/file-session.js";

const session = openFileSession(process.argv[2]!);
session.appendCustom("child", { pid: process.pid });
process.stdout.write("ready\n");
setInterval(() => {}, 60_000);
