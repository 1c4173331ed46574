// The project's test config plus the CPU-recording setup file (see run.mjs).
import { mergeConfig } from "vitest/config";
import base from "../../vitest.config.ts";

export default mergeConfig(base, {
  test: { setupFiles: [new URL("setup.mjs", import.meta.url).pathname] },
});
