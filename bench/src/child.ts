// Runs one benchmark (argv[2]) and sends its rows to the parent.
import { BENCHES } from "./benches.js";

const bench = BENCHES[process.argv[2] ?? ""];
if (!bench) throw new Error(`unknown benchmark ${process.argv[2]}`);
process.send?.(await bench.run());
process.disconnect?.();
