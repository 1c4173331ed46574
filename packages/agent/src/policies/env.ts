// Named defaults may be overridden by environment variables; a value that is not a whole number in
// range is ignored (the default stays), so a typo never turns a guard off.

/** A whole number >= `min` from option, then environment variable, then the default. */
export function setting(
  option: number | undefined,
  envName: string | undefined,
  fallback: number,
  min = 1,
): number {
  if (isWhole(option, min)) return option;
  if (envName !== undefined) {
    const raw = process.env[envName]?.trim();
    if (raw && /^\d+$/.test(raw)) {
      const value = Number(raw);
      if (isWhole(value, min)) return value;
    }
  }
  return fallback;
}

function isWhole(value: unknown, min: number): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= min;
}
