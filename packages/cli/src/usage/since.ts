// `tern usage --since`: a day (2026-11-30, from its start in UTC), a moment (2026-11-30T09:00Z) or
// an age counted back from now (30m, 12h, 7d, 2w). Anything else is a usage error naming the forms.
import { UsageError } from "../cli/errors.js";

const UNIT_MS: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};
const AGE = /^(\d+)([mhdw])$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MOMENT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The instant `--since TEXT` means, in ms since the epoch. */
export function parseSince(text: string, now = Date.now()): number {
  const value = text.trim();
  const age = AGE.exec(value);
  if (age) return now - Number(age[1]) * UNIT_MS[age[2]!]!;
  if (DAY.test(value)) {
    const ms = Date.parse(`${value}T00:00:00Z`);
    // Date.parse rolls 2026-02-30 over to March: only a day that exists round-trips.
    if (!Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value) return ms;
  }
  if (MOMENT.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new UsageError(
    `--since must be a day (2026-11-30), a moment with its zone (2026-11-30T09:00Z) or an age (30m, 12h, 7d, 2w); got ${JSON.stringify(text)}`,
  );
}
