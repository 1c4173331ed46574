// Volatile text a replayed request may carry where its recording had something else: tool output
// such as `node --test`'s `duration_ms 12.34`, a test runner's `(12ms)`, a timestamp, a temporary
// path, a process id. Replay matching rewrites these to fixed tokens on both sides before it
// compares, so a re-run that differs only there still matches; anything else still differs.

export interface Normalizer {
  name: string;
  pattern: RegExp;
  replacement: string;
}

/** The normalizers replay applies unless `ReplayOptions.normalizers` says otherwise. */
export const VOLATILE_NORMALIZERS: readonly Normalizer[] = [
  // node --test (TAP and spec reporters): "duration_ms 12.34", "duration_ms: 12.34".
  { name: "duration_ms", pattern: /\bduration_ms:?\s*\d+(?:\.\d+)?/g, replacement: "duration_ms <n>" },
  // ISO 8601 date-times, before the durations (their seconds must not be read as one).
  {
    name: "iso-timestamp",
    pattern: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g,
    replacement: "<timestamp>",
  },
  // Elapsed times as runners print them: "(12ms)", "1.5s", "340 ms", "(0.02 s)".
  { name: "duration", pattern: /\b\d+(?:\.\d+)?\s?(?:ms|s)\b/g, replacement: "<duration>" },
  // Temporary directories: /tmp/..., /var/folders/... (macOS), /private/var/folders/...
  {
    name: "temp-path",
    pattern: /(?:\/private)?(?:\/tmp|\/var\/folders)\/[\w.+@%=~-]+(?:\/[\w.+@%=~-]+)*/g,
    replacement: "<tmp>",
  },
  // Process ids where they are labelled: "pid 4242", "PID: 4242", "pid=4242".
  { name: "pid", pattern: /\bpid\b[\s:=]*\d+/gi, replacement: "pid <pid>" },
];

/** `text` with every normalizer applied in order. */
function normalizeText(text: string, normalizers: readonly Normalizer[]): string {
  let out = text;
  for (const { pattern, replacement } of normalizers) out = out.replace(pattern, replacement);
  return out;
}

/** A JSON value with its strings normalized (keys are left alone). */
export function normalizeValue(value: unknown, normalizers: readonly Normalizer[]): unknown {
  if (normalizers.length === 0) return value;
  if (typeof value === "string") return normalizeText(value, normalizers);
  if (Array.isArray(value)) return value.map((item) => normalizeValue(item, normalizers));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, normalizeValue(item, normalizers)]),
    );
  return value;
}
