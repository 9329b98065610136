/// <reference types="vite/client" />
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call } from "../../../test/support/api";
import { ERROR_MESSAGES_ASSET } from "./error-examples";
import { type ErrorCode, errorMessages, errorStatus } from "./errors";

type Schema = { $ref?: string; allOf?: Schema[]; properties?: Record<string, Schema>; enum?: string[] };
type Operation = {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema?: Schema; examples?: Record<string, unknown> }> }>;
};

// Every source file that ships: what the code can throw, read as text.
const sources = import.meta.glob(["../../**/*.ts", "!../../**/*.test.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

/** The codes a source file throws or hands to the error type by name. */
const codesThrownIn = (text: string) =>
  [...text.matchAll(/new (?:ApiError|SupplierFailure|LoginLocked)\([^";]*?"([a-z_]+)"/g)].map(([, code]) => code!);

// Answered before any route matches, or only by a test's own route: no operation can list them.
const OFF_ROUTE: ErrorCode[] = ["not_found", "method_not_allowed", "not_implemented"];

const codesOf = (schema: Schema | undefined): string[] =>
  schema?.properties?.code?.enum ?? (schema?.allOf ?? []).flatMap((part) => codesOf(part));

const loadOperations = async () => {
  const res = await call("GET", "/openapi.json");
  expect(res.status).toBe(200);
  const document = res.json as { paths: Record<string, Record<string, Operation>> };
  return Object.values(document.paths).flatMap((item) => Object.values(item));
};

/** operationId -> status -> the codes its error response lists. */
const documentedCodes = (operations: Operation[]) =>
  new Map(
    operations.map((operation) => [
      operation.operationId,
      new Map(
        Object.entries(operation.responses)
          .filter(([status]) => Number(status) >= 400)
          .map(([status, answer]) => [status, codesOf(answer.content?.["application/json"]?.schema)]),
      ),
    ]),
  );

describe("every error code is documented where it can be answered", () => {
  it("lists each code under the one status the error table gives it, with an example of each of its messages", async () => {
    const operations = await loadOperations();
    const wrong: string[] = [];
    for (const operation of operations)
      for (const [status, answer] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const media = answer.content?.["application/json"];
        if (!media) continue; // a page's own HTML answer
        const codes = codesOf(media?.schema);
        if (codes.length === 0) wrong.push(`${operation.operationId} ${status}: no code enum`);
        for (const code of codes) {
          if (String(errorStatus[code as ErrorCode]) !== status)
            wrong.push(`${operation.operationId} ${status}: ${code} is a ${errorStatus[code as ErrorCode]}`);
          if (!media?.examples?.[code]) wrong.push(`${operation.operationId} ${status}: no example of ${code}`);
        }
      }
    expect(wrong).toEqual([]);
  });

  it("documents every code of the table on some operation (or it is answered before any route)", async () => {
    const documented = new Set(
      [...documentedCodes(await loadOperations()).values()].flatMap((statuses) => [...statuses.values()].flat()),
    );
    const undocumented = (Object.keys(errorStatus) as ErrorCode[]).filter(
      (code) => !documented.has(code) && !OFF_ROUTE.includes(code),
    );
    expect(undocumented).toEqual([]);
  });

  it("has every code the sources throw in the table, with at least one message", () => {
    const thrown = new Set(Object.values(sources).flatMap(codesThrownIn));
    expect(thrown.size).toBeGreaterThan(100);
    expect([...thrown].filter((code) => !(code in errorStatus) || !errorMessages[code as ErrorCode]?.length)).toEqual(
      [],
    );
    // And no line of the table that nothing sends.
    const sent = new Set([...thrown, "supplier_error", "supplier_timeout", "supplier_unavailable"]);
    expect(
      Object.keys(errorStatus).filter((code) => !sent.has(code) && !OFF_ROUTE.includes(code as ErrorCode)),
    ).toEqual([]);
  });

  it("serves the table's messages as the asset the document reads (npm run assets writes it)", async () => {
    const asset = await env.ASSETS.fetch(new Request(`https://assets.local${ERROR_MESSAGES_ASSET}`));
    expect(asset.status).toBe(200);
    expect(await asset.json()).toEqual(errorMessages);
  });

  it("fills every documented code's messages into the served document, one example each", async () => {
    const operations = await loadOperations();
    const book = operations.find((operation) => operation.operationId === "createBooking")!;
    const refused = book.responses["400"]!.content!["application/json"]!.examples!;
    expect(refused.booking_failed).toEqual({
      summary: "booking_failed",
      value: { message: "The booking was not successful.", code: "booking_failed", requestId: expect.any(String) },
    });
    const chat = operations.find((operation) => operation.operationId === "getChatSession")!;
    expect(chat.responses["404"]!.content!["application/json"]!.examples!.session_not_found).toMatchObject({
      value: { success: false, error: "session_not_found", code: "session_not_found" },
    });
    const cancel = operations.find((operation) => operation.operationId === "cancelBooking")!;
    const conflicts = cancel.responses["409"]!.content!["application/json"]!.examples!;
    expect(Object.keys(conflicts)).toEqual(expect.arrayContaining(["booking_pending", "booking_pending_2"]));
    expect(JSON.stringify(operations)).not.toContain('"{message}"');
  });

  it("documents the supplier's failures where a supplier is asked: 502 supplier_error, 503 and 504 on quote and cancel", async () => {
    const codes = documentedCodes(await loadOperations());
    for (const operationId of ["createQuote", "cancelBooking", "commitBooking"]) {
      expect(codes.get(operationId)?.get("502"), operationId).toContain("supplier_error");
      expect(codes.get(operationId)?.get("503"), operationId).toContain("supplier_unavailable");
      expect(codes.get(operationId)?.get("504"), operationId).toContain("supplier_timeout");
    }
  });

  it("documents book's 202 pending beside its refusals", async () => {
    const operations = await loadOperations();
    const book = operations.find((operation) => operation.operationId === "createBooking")!;
    expect(Object.keys(book.responses)).toContain("202");
    expect(documentedCodes(operations).get("createBooking")?.get("400")).toContain("booking_failed");
  });
});
