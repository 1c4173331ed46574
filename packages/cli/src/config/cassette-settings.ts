// --record FILE / --replay FILE (with --replay-timing and --replay-miss) of `run`, `chat` and
// `serve`: validated here, before anything starts, so a missing or malformed cassette is a usage
// error (exit 2) and not a failed run.
import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { REPLAY_MISSES, REPLAY_TIMINGS, type ReplayMiss, type ReplayTiming, readCassette } from "@tern/ai";
import { type OptionValues, stringOption } from "../cli/args.js";
import { UsageError } from "../cli/errors.js";
import { choice } from "./values.js";

export type CassetteSettings =
  | { mode: "record"; path: string }
  | { mode: "replay"; path: string; timing: ReplayTiming; miss: ReplayMiss };

export function resolveCassetteSettings(values: OptionValues, cwd: string): CassetteSettings | undefined {
  const record = stringOption(values, "record");
  const replay = stringOption(values, "replay");
  const timing = stringOption(values, "replay-timing");
  const miss = stringOption(values, "replay-miss");
  if (record !== undefined && replay !== undefined)
    throw new UsageError(
      "--record and --replay cannot be used together (--replay-miss record appends to the replayed file)",
    );
  if (replay === undefined && (timing !== undefined || miss !== undefined))
    throw new UsageError(`${timing !== undefined ? "--replay-timing" : "--replay-miss"} needs --replay FILE`);
  if (record !== undefined) {
    const path = resolve(cwd, record);
    checkWritableDirectory(path);
    return { mode: "record", path };
  }
  if (replay === undefined) return undefined;
  const path = resolve(cwd, replay);
  try {
    readCassette(path);
  } catch (error) {
    throw new UsageError(`--replay: ${(error as Error).message}`);
  }
  return {
    mode: "replay",
    path,
    timing: choice("--replay-timing", timing ?? "none", REPLAY_TIMINGS),
    miss: choice("--replay-miss", miss ?? "fail", REPLAY_MISSES),
  };
}

function checkWritableDirectory(path: string): void {
  let ok = false;
  try {
    ok = statSync(dirname(path)).isDirectory() && !statSync(path, { throwIfNoEntry: false })?.isDirectory();
  } catch {}
  if (!ok) throw new UsageError(`--record ${path}: its directory does not exist, or it is a directory`);
}
