import { defineConfig } from "vitest/config";

// Chromium runs: the real Worker out of process, a partner page on a second origin, Debian's Chromium.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
