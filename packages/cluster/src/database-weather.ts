// graphile-worker 0.17.3 does not await the statement that completes or fails a job: a database
// restart landing during it rejects with nobody listening, and Node ends the process. Such a
// rejection is weather: the run row is already settled and the sweep hands the job back, so a
// node process logs it and keeps working. A process opts in by calling this once (a library never
// installs process handlers by itself); any other unhandled rejection still ends the process.
import { isDatabaseUnavailable, messageOf } from "@tern/store-pg";

export function surviveDatabaseRestarts(log: (line: string) => void): void {
  process.on("unhandledRejection", (reason) => {
    if (!isDatabaseUnavailable(reason)) throw reason;
    log(`database unavailable (${messageOf(reason)}); carrying on`);
  });
}
