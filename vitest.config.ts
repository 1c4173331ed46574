import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    testTimeout: 20_000,
    pool: "forks",
    // Builds the `tern` bundle once for the tests that spawn the real command.
    globalSetup: ["packages/cli/test/global-setup.ts"],
  },
});
