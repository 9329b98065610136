import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { refuseUnknownFields } from "./unknown-fields";
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

describe("refuseUnknownFields: an undeclared field is refused by name, at any depth (issue 37)", () => {
  const pax = z.object({ age: z.number() }).openapi("Pax", { example: { age: 30 } });
  const body = refuseUnknownFields(
    z
      .object({
        criteria: z.object({ checkIn: z.string(), paxes: z.array(pax).optional() }),
        settings: z.object({ rules: z.object({ quota: z.number() }).strict().optional() }).optional(),
        map: z.record(z.string(), z.unknown()).optional(),
        open: z.looseObject({ known: z.string().optional() }).optional(),
        either: z.union([z.object({ a: z.number() }), z.object({ b: z.number() })]).optional(),
        both: z.intersection(z.object({ x: z.number() }), z.object({ y: z.number() })).optional(),
        dated: z.preprocess((v) => v, z.object({ day: z.string() })).optional(),
      })
      .superRefine((value, ctx) => {
        if (value.criteria.checkIn === "never") ctx.addIssue({ code: "custom", message: "its own check still runs" });
      }),
  );
  const answer = (input: unknown) => {
    const result = body.safeParse(input);
    return result.success ? null : validationError(result.error.issues, input);
  };
  const valid = { criteria: { checkIn: "2027-03-10" } };

  it("names each unknown field by its path, one detail each", () => {
    expect(answer({ ...valid, criteria: { checkIn: "x", checkin: "y" } })?.message).toBe(
      "Unknown field: criteria.checkin",
    );
    expect(answer({ ...valid, criteria: { checkIn: "x", paxes: [{ age: 1 }, { age: 2, name: "A" }] } })?.message).toBe(
      "Unknown field: criteria.paxes[1].name",
    );
    expect(answer({ ...valid, settings: { rules: { quota: 1, max: 2 } } })?.message).toBe(
      "Unknown field: settings.rules.max",
    );
    expect(answer({ ...valid, dated: { day: "d", night: "n" } })?.message).toBe("Unknown field: dated.night");
    expect(answer({ ...valid, a: 1, b: 2 })?.details).toEqual({
      issues: [
        { field: "a", message: "Unknown field: a" },
        { field: "b", message: "Unknown field: b" },
      ],
    });
  });

  it("leaves records and loose objects open, unions and intersections to their members, and keeps the schema's own checks", () => {
    expect(answer({ ...valid, map: { anything: 1 }, open: { known: "k", other: 2 } })).toBeNull();
    expect(answer({ ...valid, either: { b: 1 }, both: { x: 1, y: 2 } })).toBeNull();
    expect(answer({ ...valid, both: { x: 1, y: 2, z: 3 } })?.message).toBe("Unknown field: both.z");
    expect(answer({ criteria: { checkIn: "never" } })?.message).toBe("Request body: its own check still runs");
  });

  it("keeps a schema's OpenAPI name and example, shown closed, and leaves a schema without objects as it is", () => {
    const app = new OpenAPIHono();
    const route = createRoute({
      method: "post",
      path: "/pax",
      request: { body: { content: { "application/json": { schema: refuseUnknownFields(z.object({ pax })) } } } },
      responses: { 204: { description: "Taken" } },
    });
    app.openapi(route, (c) => c.body(null, 204));
    const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    expect(document.components?.schemas?.Pax).toEqual({
      type: "object",
      properties: { age: { type: "number" } },
      required: ["age"],
      additionalProperties: false,
      example: { age: 30 },
    });
    const text = z.string().max(3);
    expect(refuseUnknownFields(text)).toBe(text);
  });
});
