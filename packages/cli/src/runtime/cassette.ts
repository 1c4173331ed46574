// The cassette of --record / --replay, opened once per command (chat's /new and each session of
// `tern serve` share it) and handed to every model call as its `fetch`. What changes between a
// recording and its replay is put in as placeholders, so a cassette replays in another directory
// on another day: the workspace path, today's date and the session id (providers' cache key).
import {
  apiKeyVariable,
  type CassetteRecording,
  type CassetteReplay,
  type Model,
  type ModelFetch,
  recordCassette,
  replayCassette,
} from "@tern/ai";
import type { Session } from "@tern/session";
import { UsageError } from "../cli/errors.js";
import type { CassetteSettings } from "../config/cassette-settings.js";
import { CASSETTE_ENTRY, type CassetteEntryData } from "./cassette-entry.js";

/** What stands in for the key when a replay sends nothing anywhere. */
const REPLAY_KEY = "replayed-no-key";

type Opened = (CassetteRecording | CassetteReplay) & { addPlaceholder(name: string, value: string): void };

const opened = new WeakMap<CassetteSettings, Opened>();

/** The cassette's `fetch` for model calls in `cwd`; the key in use is scrubbed from the recording. */
export function cassetteFetch(
  settings: CassetteSettings,
  where: { cwd: string; model: Model; apiKey: string | undefined; env: NodeJS.ProcessEnv },
): ModelFetch {
  let cassette = opened.get(settings);
  if (!cassette) {
    const secrets = [
      where.apiKey,
      where.env[apiKeyVariable(where.model.provider)],
      ...Object.values(where.model.headers ?? {}),
    ].filter((value): value is string => value !== undefined && value !== "");
    const placeholders = { cwd: where.cwd, date: new Date().toISOString().slice(0, 10) };
    try {
      cassette =
        settings.mode === "record"
          ? recordCassette(settings.path, { secrets, placeholders })
          : replayCassette(settings.path, {
              secrets,
              placeholders,
              timing: settings.timing,
              miss: settings.miss,
            });
    } catch (error) {
      throw new UsageError(`--${settings.mode}: ${(error as Error).message}`);
    }
    opened.set(settings, cassette);
  }
  cassette.addPlaceholder("cwd", where.cwd);
  return cassette.fetch;
}

/** True when no request leaves the machine, so no API key is needed. */
export function replaysOffline(settings: CassetteSettings | undefined): boolean {
  return settings?.mode === "replay" && settings.miss === "fail";
}

/** The key option of a model call: a stand-in when replaying offline without one. */
export function replayKey(
  settings: CassetteSettings | undefined,
  apiKey: string | undefined,
): string | undefined {
  return apiKey ?? (replaysOffline(settings) ? REPLAY_KEY : undefined);
}

/** Notes the cassette in the session (for `tern sessions export --cassette`) and adds its id as a placeholder. */
export function attachCassette(settings: CassetteSettings | undefined, session: Session): void {
  if (!settings) return;
  opened.get(settings)?.addPlaceholder("session", session.id);
  const data: CassetteEntryData = { path: settings.path, mode: settings.mode };
  session.appendCustom(CASSETTE_ENTRY, data);
}
