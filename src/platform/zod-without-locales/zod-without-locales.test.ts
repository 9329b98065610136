import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
// zod's classic API (the tests load zod pre-bundled, as one module: vitest.config.ts).
import * as fullZod from "zod/v4";

// The names src/platform/zod-without-locales/api.ts leaves out of the bundle.
const leftOut = ["locales", "core", "fromJSONSchema", "compile", "withParser"];
// "zod/v4" adds a default export (the namespace) to the classic API; zod-without-locales has its own.
const notClassic = ["default"];

describe("zod as bundled", () => {
  it("is the trimmed module, so the suite runs what ships", () => {
    expect((z as Record<string, unknown>).locales).toBeUndefined();
  });

  it("keeps every other export of zod's classic API, as the same values", () => {
    const missing = Object.keys(fullZod).filter(
      (name) =>
        !leftOut.includes(name) &&
        !notClassic.includes(name) &&
        (z as Record<string, unknown>)[name] !== (fullZod as Record<string, unknown>)[name],
    );
    expect(missing).toEqual([]);
  });

  it("still answers in English", () => {
    const result = z.object({ name: z.string(), nights: z.number().int().min(1) }).safeParse({ name: 1, nights: 0 });
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      "Invalid input: expected string, received number",
      "Too small: expected number to be >=1",
    ]);
  });

  it("still describes schemas for /openapi.json", () => {
    expect(z.string().openapi({ example: "x" }).toJSONSchema()).toMatchObject({ type: "string" });
  });
});
