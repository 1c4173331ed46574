// Reading a frame's JSON payload without trusting it: a field of the wrong type reads as empty.

export type Data = Record<string, unknown>;

export const str = (value: unknown): string => (typeof value === "string" ? value : "");
export const num = (value: unknown): number => (typeof value === "number" ? value : 0);
