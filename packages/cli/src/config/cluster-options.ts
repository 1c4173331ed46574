// The cluster's flags. The store URL is the shared one (`--store`, TERN_STORE, "store" in
// config.json: config/store.ts): a postgres:// store switches `tern serve` to a cluster node that
// enqueues runs, and is what `tern worker` needs; `--no-worker` makes a serve node only serve.
// The URL is checked (exit 2) and never echoed: it may hold a password (messages show it through
// @tern/store-pg's redactUrl).
import { type OptionSpecs, type OptionValues, stringOption } from "../cli/args.js";
import { UsageError } from "../cli/errors.js";
import { type Environment, loadHome } from "./home.js";
import { storeUrlFrom } from "./store.js";
import { positiveInteger } from "./values.js";

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

/** The cluster settings when the store (flag, environment, config) is PostgreSQL, else undefined. */
export function resolveClusterSettings(
  values: OptionValues,
  environment: Environment,
): ClusterSettings | undefined {
  const store = storeUrlFrom(values, environment.env, loadHome(environment).config.config);
  if (store === undefined) return undefined;
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
