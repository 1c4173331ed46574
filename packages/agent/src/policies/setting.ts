// Named defaults a policy's options may override; a value that is not a whole number in range is
// ignored (the default stays), so a bad option never turns a guard off. The library reads no
// environment: the CLI maps REACT_* variables onto these options.

/** A whole number >= `min` from the option, else the default. */
export function setting(option: number | undefined, fallback: number, min = 1): number {
  return isWhole(option, min) ? option : fallback;
}

function isWhole(value: unknown, min: number): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= min;
}
