// The cluster's flags, kept apart from serve-settings.ts (the session-store work adds `--store`
// to the shared config too; the two are reconciled at merge). `--store postgres://…` switches
// `tern serve` to enqueueing runs and is what `tern worker` needs; `--no-worker` makes a serve
// node only serve. The URL is checked here (exit 2) and never echoed: it may hold a password.
import { type OptionSpecs, type OptionValues, stringOption } from "../cli/args.js";
import { UsageError } from "../cli/errors.js";
import { positiveInteger } from "./settings.js";

export const CLUSTER_OPTIONS: OptionSpecs = {
  store: { type: "string" },
  "no-worker": { type: "boolean" },
  concurrency: { type: "string" },
  lease: { type: "string" },
};

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_LEASE_S = 15;

export interface ClusterSettings {
  /** postgres://… (credentials from the URL or the PG* variables). */
  url: string;
  worker: boolean;
  concurrency: number;
  leaseMs: number;
}

/** The cluster settings when --store names PostgreSQL, else undefined (the file store). */
export function resolveClusterSettings(
  values: OptionValues,
  env: NodeJS.ProcessEnv,
): ClusterSettings | undefined {
  const store = stringOption(values, "store") ?? env.TERN_STORE;
  if (store === undefined || store === "" || store === "file") return undefined;
  if (!/^postgres(ql)?:\/\//.test(store)) throw new UsageError('--store takes "file" or a postgres://… URL');
  try {
    new URL(store);
  } catch {
    throw new UsageError("--store: the postgres URL is malformed");
  }
  const concurrency = stringOption(values, "concurrency");
  const lease = stringOption(values, "lease");
  return {
    url: store,
    worker: values["no-worker"] !== true,
    concurrency: positiveInteger("--concurrency", concurrency) ?? DEFAULT_CONCURRENCY,
    leaseMs: (positiveInteger("--lease", lease) ?? DEFAULT_LEASE_S) * 1000,
  };
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://…";
  }
}
