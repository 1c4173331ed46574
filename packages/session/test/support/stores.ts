// The store suite runs against every SessionStore: the JSONL file store and the PostgreSQL store
// (@tern/store-pg on a real throwaway cluster, one per test file, emptied before each test).
// `storeOfKind(kind, options)` registers the per-test setup for one kind, like storePerTest.
import { PgSessionStore } from "@tern/store-pg";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { FileSessionStore } from "../../src/file-store.js";
import type { Session } from "../../src/session.js";
import type { SessionOptions, SessionStore } from "../../src/types.js";
import { startTestPostgres, type TestPostgres } from "./postgres.js";
import { storePerTest } from "./store-per-test.js";

export const STORE_KINDS = ["file", "postgres"] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export interface AnyStorePerTest {
  readonly kind: StoreKind;
  /** This test's store (a new, empty one each test). */
  readonly store: SessionStore;
  /** Another store on the same sessions: a second process's view. */
  another(options?: SessionOptions): SessionStore;
  /** Sessions to close after the test. */
  readonly open: Session[];
}

let cluster: Promise<TestPostgres> | undefined;
let disposal = false;

/** One cluster for the whole test file, started by the first test that needs it. */
function sharedPostgres(): Promise<TestPostgres> {
  cluster ??= startTestPostgres();
  return cluster;
}

/** Stops the file's cluster after its tests. Registered while the file is collected (a hook added from inside another hook never runs). */
function disposeAfterFile(): void {
  if (disposal) return;
  disposal = true;
  afterAll(async () => {
    await (await cluster)?.dispose();
    cluster = undefined;
  });
}

export function storeOfKind(kind: StoreKind, options: () => SessionOptions = () => ({})): AnyStorePerTest {
  if (kind === "file") {
    const fx = storePerTest(options);
    return {
      kind,
      get store() {
        return fx.store;
      },
      another: (more = {}) => new FileSessionStore({ home: fx.home, ...more }),
      open: fx.open,
    };
  }
  disposeAfterFile();
  let pg: TestPostgres | undefined;
  let store: PgSessionStore | undefined;
  const extra: PgSessionStore[] = [];
  const open: Session[] = [];
  beforeAll(async () => {
    pg = await sharedPostgres();
  });
  beforeEach(async () => {
    store = await PgSessionStore.connect({ url: pg!.url, ...options() });
    await store.pool.query("TRUNCATE tern_sessions CASCADE");
  });
  afterEach(async () => {
    for (const session of open.splice(0)) await session.close();
    for (const other of extra.splice(0)) await other.close();
    await store?.close();
  });
  return {
    kind,
    get store() {
      if (!store) throw new Error("storeOfKind: used outside a test");
      return store;
    },
    another: (more = {}) => {
      const other = new PgSessionStore({ url: pg!.url, ...more });
      extra.push(other);
      return other;
    },
    open,
  };
}
