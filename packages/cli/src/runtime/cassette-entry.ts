// The session entry that ties a session to the cassette its model calls went to. Its own module:
// `tern sessions export --cassette` reads it without loading the recording and replaying fetches.
import type { CassetteSettings } from "../config/cassette-settings.js";

export const CASSETTE_ENTRY = "cassette";

export interface CassetteEntryData {
  path: string;
  mode: CassetteSettings["mode"];
}
