import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../local/platform";
import { withoutDocumentation } from "./worker-documentation";

const PURE = "/* @__PURE__ */ ";
/** Lines and columns are kept: the same length, the same newlines where they were (but for the pure marks). */
const expectSamePlaces = (before: string, marked: string) => {
  const after = marked.replaceAll(PURE, "");
  expect(after.length).toBe(before.length);
  expect([...after.matchAll(/\n/g)].map((m) => m.index)).toEqual([...before.matchAll(/\n/g)].map((m) => m.index));
};
const squeezed = (text: string) => text.replace(/\s+/g, "");

describe("the Worker's build leaves out what only /openapi.json reads (worker-documentation.ts)", () => {
  it("blanks a schema's .openapi(metadata) and .openapi(name, metadata), nested ones with it, and keeps the schema", () => {
    const source = [
      "const a = z.string().min(1).openapi({",
      '  description: "A code",',
      '  example: z.literal("x").openapi({ example: "x" }),',
      "}).optional();",
      'const b = z.object({ c: z.number().openapi("Count", { example: 1 }) }).openapi("B");',
    ].join("\n");
    const out = withoutDocumentation(source);
    expectSamePlaces(source, out);
    expect(squeezed(out.replaceAll(PURE, ""))).toBe(
      squeezed("const a = z.string().min(1).optional(); const b = z.object({ c: z.number() });"),
    );
  });

  it("keeps a router's .openapi(route, handler) and a call it cannot tell is metadata", () => {
    const source = "app.openapi(route, async (c) => c.json({}));\nconst d = z.string().openapi(meta);\n";
    expect(withoutDocumentation(source).replaceAll(PURE, "")).toBe(source);
  });

  it("leaves out what a route says for the document alone, empties its responses (built or written), and no other field or object", () => {
    const source = [
      "const r = apiRoute({",
      '  operationId: "getThing",',
      '  summary: "Read a thing",',
      '  description: "What it is " +',
      '    "for",',
      "  description2: `kept`,",
      "  responses: { 200: { description: `The thing`, ...json(thing) } },",
      "  request: { body: { description: `A body`, ...json(thing) } },",
      '  tags: ["Things"],',
      "  ...operator,",
      "  security: [{ ApiKey: [] }],",
      '  errors: [...readErrors, "thing_not_found"],',
      "  errorShape: thingErrorShape,",
      "});",
      'const kind = { description: "a kind", summary: made.summary };',
      "const s = createRoute({ summary: made.summary, path: `/x`, tags, security: made.security });",
      "const t = createRoute({ ...route, responses: documentedResponses(config) } as RouteConfig);",
      "const u = apiRoute({ request: { responses: made.responses, errors: [] }, errors: codesOf(thing) });",
    ].join("\n");
    const out = withoutDocumentation(source);
    expectSamePlaces(source, out);
    expect(squeezed(out)).toBe(
      squeezed(
        [
          "const r = apiRoute({",
          "  description2: `kept`,",
          "  responses: {},",
          '  request: { body: { description: "", ...json(thing) } },',
          "  ...operator,",
          "});",
          'const kind = { description: "a kind", summary: made.summary };',
          "const s = createRoute({ summary: made.summary, path: `/x`, security: made.security });",
          "const t = createRoute({ ...route, responses: {} } as RouteConfig);",
          "const u = apiRoute({ request: { responses: made.responses, errors: [] }, errors: codesOf(thing) });",
        ].join("\n"),
      ),
    );
  });

  it("leaves out a top-level declaration only what is cut reads, and what only it read", () => {
    const source = [
      "const thing = z.object({ id: z.string() });",
      'const answer = { description: "The thing", ...json(thing) };',
      "const other = { ...json(thing) };",
      "export const shared = { ...json(z.string()) };",
      "const r = apiRoute({ responses: { 200: answer, 201: shared, 202: other } });",
      "const s = apiRoute({ request: jsonRequestBody(other) });",
      "const unread = { ...json(thing) };",
      "const inner = z.string();",
      "const outer = { ...json(inner) };",
      "const t = createRoute({ responses: { 200: outer } });",
    ].join("\n");
    const out = withoutDocumentation(source).replaceAll(PURE, "");
    expectSamePlaces(source, out);
    expect(out.split("\n").map(squeezed)).toEqual(
      [
        source.split("\n")[0]!,
        "",
        ...source.split("\n").slice(2, 4),
        "const r = apiRoute({ responses: {} });",
        ...source.split("\n").slice(5, 7),
        "",
        "",
        "const t = createRoute({ responses: {} });",
      ].map(squeezed),
    );
  });

  it("marks the calls of a schema declared at the top of a file pure, and nothing else", () => {
    const source = [
      "const a = z.object({ b: z.string(), c: money(1), d: z.string().refine((v) => check(v)) });",
      "const h = envelopeSchema(a);",
      "const i = a.extend({ j: z.string() });",
      "const k = { l: z.string(), m: { n: i.optional() } };",
      "export const e = apiRoute({});",
      "function f() { const g = z.string(); }",
      "const o = imported.extend({ p: z.string() });",
      "const q = { r: z.string(), s: 1 };",
    ].join("\n");
    const out = withoutDocumentation(source);
    expectSamePlaces(source, out);
    expect(out.split("\n").slice(0, 4)).toEqual([
      `const a = ${PURE}z.object({ b: ${PURE}z.string(), c: ${PURE}money(1), d: ${PURE}z.string().refine((v) => check(v)) });`,
      `const h = ${PURE}envelopeSchema(a);`,
      `const i = ${PURE}a.extend({ j: ${PURE}z.string() });`,
      `const k = { l: ${PURE}z.string(), m: { n: ${PURE}i.optional() } };`,
    ]);
    expect(out.split("\n").slice(4)).toEqual(source.split("\n").slice(4));
  });

  it("keeps every source file's lines, and leaves no schema metadata in any", () => {
    const files = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" }).filter(
      (file) => file.endsWith(".ts") && !file.endsWith(".test.ts"),
    );
    let blanked = 0;
    for (const file of files) {
      const source = readFileSync(join(root, "src", file), "utf8");
      const out = withoutDocumentation(source, file);
      expectSamePlaces(source, out);
      if (out !== source) blanked++;
      expect(out, file).not.toMatch(/\.openapi\(\s*[{"]/);
    }
    expect(blanked).toBeGreaterThan(30);
  });
});
