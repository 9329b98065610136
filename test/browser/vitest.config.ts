import { defineConfig } from "vitest/config";

// Browser tests: a real Chromium against `wrangler dev` started out of process.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    testTimeout: 180_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
