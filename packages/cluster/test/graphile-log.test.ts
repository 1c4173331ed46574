// graphile-worker's log lines reach the host only through its listener: errors when one is given,
// nothing otherwise, whatever TERN_CLUSTER_DEBUG says (that variable is the CLI's to map).
import { afterEach, expect, it, vi } from "vitest";
import { quietLogger } from "../src/schema.js";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

it("hands error-level lines to the host's listener and drops the rest", () => {
  const told: string[] = [];
  const logger = quietLogger((message) => told.push(message));
  logger.error("job failed");
  logger.warn("slow");
  logger.info("started");
  expect(told).toEqual(["job failed"]);
});

it("writes nothing without a listener, even under TERN_CLUSTER_DEBUG", () => {
  vi.stubEnv("TERN_CLUSTER_DEBUG", "1");
  const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  quietLogger().error("job failed");
  expect(write).not.toHaveBeenCalled();
});
