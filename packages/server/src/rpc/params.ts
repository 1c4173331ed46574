// Reading JSON-RPC params: wrong types are "Invalid params" errors naming the field.

import { INVALID_PARAMS, RpcError } from "./peer.js";

export type Params = Record<string, unknown>;

export function requireString(params: Params, key: string): string {
  const value = params[key];
  if (typeof value !== "string" || value === "")
    throw new RpcError(INVALID_PARAMS, `Invalid params: "${key}" must be a non-empty string`);
  return value;
}

export function optionalString(params: Params, key: string): string | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string")
    throw new RpcError(INVALID_PARAMS, `Invalid params: "${key}" must be a string`);
  return value;
}

export function flag(params: Params, key: string): boolean {
  return params[key] === true;
}

export function record(value: unknown): Params | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Params) : undefined;
}
