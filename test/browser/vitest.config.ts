import { defineConfig } from "vitest/config";

// Browser tests: the real Worker out of process, driven by Debian's Chromium (radar snippet, chat card setup).
// One file at a time: each starts its own Worker and browser on a 2-core machine.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    testTimeout: 180_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
