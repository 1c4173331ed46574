// A FileSessionStore in a fresh temporary home for each test of the calling file: registers the
// beforeEach/afterEach pair that every store test wrote out by hand. Sessions a test pushes onto
// `open` are closed after it, then the home is removed.
import { afterEach, beforeEach } from "vitest";
import { FileSessionStore, type FileSessionStoreOptions } from "../../src/file-store.js";
import type { Session } from "../../src/session.js";
import { tempHome } from "./helpers.js";

export interface StorePerTest {
  /** This test's store (a new one each test). */
  readonly store: FileSessionStore;
  /** This test's temporary home directory. */
  readonly home: string;
  /** Sessions to close after the test. */
  readonly open: Session[];
}

/** `options` is called before each test, so stateful options (`deterministic()`'s counters) start afresh. */
export function storePerTest(
  options: () => Omit<FileSessionStoreOptions, "home"> = () => ({}),
): StorePerTest {
  let home: ReturnType<typeof tempHome> | undefined;
  let store: FileSessionStore | undefined;
  const open: Session[] = [];
  beforeEach(() => {
    home = tempHome();
    store = new FileSessionStore({ home: home.home, ...options() });
  });
  afterEach(async () => {
    for (const session of open.splice(0)) await session.close();
    home?.cleanup();
  });
  const during = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("storePerTest: used outside a test");
    return value;
  };
  return {
    get store() {
      return during(store);
    },
    get home() {
      return during(home).home;
    },
    open,
  };
}
