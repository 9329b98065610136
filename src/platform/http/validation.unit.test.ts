import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { specMessage, unsupportedField, validationError } from "./validation";

const schema = z.object({
  role: z.enum(["admin", "user"]),
  size: z.number().int().max(100),
  nested: z.object({ code: z.string() }).optional(),
  reference: z.string({ error: specMessage("bookingReference is required for cancellation") }),
});

const messageFor = (input: unknown) => {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected a failure");
  return validationError(result.error.issues, input).message;
};

describe("validation messages name the field", () => {
  it("says a missing field is required, whatever its type", () => {
    expect(messageFor({ size: 1, reference: "x" })).toBe("role is required");
    expect(messageFor({ role: "user", reference: "x" })).toBe("size is required");
    expect(messageFor({ role: "user", size: 1, reference: "x", nested: {} })).toBe("nested.code is required");
  });

  it("keeps zod's reason for a present but wrong value", () => {
    expect(messageFor({ role: "owner", size: 1, reference: "x" })).toBe(
      'role: Invalid option: expected one of "admin"|"user"',
    );
    expect(messageFor({ role: "user", size: 101, reference: "x" })).toBe("size: Too big: expected number to be <=100");
  });

  it("returns spec messages word for word", () => {
    expect(messageFor({ role: "user", size: 1 })).toBe("bookingReference is required for cancellation");
  });

  it("words a field that is not supported, with its hint; absent, null, [] and inert values pass", () => {
    const settings = z.object({
      settings: z.object({
        plugins: unsupportedField("no plugins run here"),
        testMode: unsupportedField(undefined, [false]),
      }),
    });
    const message = (input: unknown) => {
      const result = settings.safeParse(input);
      return result.success ? null : validationError(result.error.issues, input).message;
    };
    for (const accepted of [{}, { plugins: null, testMode: false }, { plugins: [] }])
      expect(message({ settings: accepted })).toBeNull();
    expect(message({ settings: { plugins: [{ step: "REQUEST" }] } })).toBe(
      "settings.plugins is not supported; no plugins run here",
    );
    expect(message({ settings: { testMode: true } })).toBe("settings.testMode is not supported");
  });
});
