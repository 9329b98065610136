import { defineConfig } from "vitest/config";

// Out-of-process runs: real `npm start`, real HTTP over loopback.
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
