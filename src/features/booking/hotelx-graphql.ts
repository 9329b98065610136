import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  GraphQLError,
  getOperationAST,
  parse,
  validate,
} from "graphql";
import type { z } from "@hono/zod-openapi";
import { ApiError } from "../../platform/http/api-error";
import { validationError } from "../../platform/http/validation";
import { loggableError } from "../../platform/observability/loggable-error";
import type { CoreConnection, UsageOperation } from "../connections";
import type { BookingDeps, SandboxScenario } from "./deps";
import { documentRefusals, GRAPHQL_LIMITS, refused, sourceRefusal } from "./hotelx-graphql-budget";
import { withPublicFields } from "./hotelx-fields";
import { hotelxSchema } from "./hotelx-sdl";
import { bookTgx } from "./tgx-book";
import { type BookingCriteria, readBookingsTgx } from "./tgx-booking-read";
import { cancelTgx } from "./tgx-cancel";
import { commitTgx } from "./tgx-commit";
import {
  tgxBookRequestSchema,
  tgxCancelRequestSchema,
  tgxCommitRequestSchema,
  tgxQuoteRequestSchema,
} from "./tgx-flow-schemas";
import { quoteTgx } from "./tgx-quote";
import { supplierTimedOut, tgxOutcome } from "./tgx-answers";
import { tgxSearchRequestSchema } from "./tgx-schemas";
import { searchTgx } from "./tgx-search";

/**
 * POST /api/graphql: Hotel-X documents (`hotelX { search quote booking }`, `mutation { hotelX {
 * book cancel commit } }`) executed by graphql-js against the project's Hotel-X SDL, the one the sandbox
 * serves (sandbox/hotelx/src/schema.ts). Each field runs the Hotel-X shaped service of its REST
 * route (/api/search/tgx, /api/quote/tgx, /api/book/tgx, /api/cancel/tgx), its arguments checked by
 * that route's schema, so both answer alike; graphql-js then keeps the selected fields.
 */

/** What every field of one request shares. */
export type GraphqlCall = {
  deps: BookingDeps;
  connection: CoreConnection;
  meta: { requestId: string; startedAt: number; scenario: SandboxScenario | null };
  idempotencyKey: string | undefined;
  /** Counts a search or quote against the connection's rate limit; throws 429 past it. */
  admit: () => Promise<void>;
  /** Counts a billable field's call, as the REST routes do (success or its error code). */
  count: (billing: { operation: UsageOperation; outcome: string; supplierTimeout?: boolean }) => void;
  /** Set when a book or cancel answered a stored (idempotent) answer. */
  replayed: boolean;
  /** The Worker's static assets, where the Hotel-X SDL is read from. */
  assets: Fetcher;
};

/** GraphQL's explicit null is Hotel-X's "not sent": the REST schemas take absent fields. */
const withoutNulls = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
};

/** The REST route's request schema over a field's arguments: the same 400 messages, as GraphQL errors. */
const parsed = <T extends z.ZodType>(schema: T, value: unknown): z.infer<T> => {
  const input = withoutNulls(value);
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error.issues, input);
  return result.data;
};

/** An error of a field as GraphQL reports it: the API's code and status in `extensions`; a fault is logged, never shown. */
const fieldError = (error: unknown, call: GraphqlCall): GraphQLError => {
  if (error instanceof GraphQLError) return error;
  if (error instanceof ApiError)
    return new GraphQLError(error.message, {
      extensions: { code: error.code, status: error.status, ...(error.details ? { details: error.details } : {}) },
    });
  console.error(
    JSON.stringify({
      level: "error",
      event: "graphql_field_failed",
      requestId: call.meta.requestId,
      error: loggableError(error),
    }),
  );
  return new GraphQLError("Internal error", { extensions: { code: "internal_error", requestId: call.meta.requestId } });
};

type Args = { settings?: Record<string, unknown> | null } & Record<string, unknown>;
type Field = (args: Args, call: GraphqlCall) => Promise<unknown>;
const field =
  (resolve: Field) =>
  async (args: Args, call: GraphqlCall): Promise<unknown> => {
    try {
      return await resolve(args, call);
    } catch (error) {
      throw fieldError(error, call);
    }
  };

/** The REST request a field stands for: its arguments, the connection in `settings.access.code`. */
const restRequest = (args: Args, call: GraphqlCall, name: "criteria" | "input") => ({
  [name]: args[name],
  settings: { ...(withoutNulls(args.settings ?? {}) as object), access: { code: call.connection.code } },
});

type Billing = { outcome?: string; supplierTimeout?: boolean; replayed?: boolean };
/**
 * A billable field: counted once its arguments parsed (it calls `bill`, as a REST route's connection
 * is judged after its body), with how it ended: its outcome, or the code of the error it threw.
 */
const billedField = (
  operation: UsageOperation,
  resolve: (args: Args, call: GraphqlCall, bill: (billing: Billing) => void) => Promise<unknown>,
) =>
  field(async (args, call) => {
    let billing: Billing | null = null;
    const bill = (more: Billing) => {
      billing = { ...billing, ...more };
    };
    try {
      const result = await resolve(args, call, bill);
      const done = billing as Billing | null;
      if (done && !done.replayed)
        call.count({ operation, outcome: done.outcome ?? "success", supplierTimeout: done.supplierTimeout });
      return result;
    } catch (error) {
      if (billing) call.count({ operation, outcome: error instanceof ApiError ? error.code : "internal_error" });
      throw error;
    }
  });

const queryRoot = {
  hotelX: {
    search: billedField("search", async (args, call, bill) => {
      // Hotel-X's filter, and its deprecated name, as /api/search/tgx reads them.
      const { filterSearch, filter } = args;
      const request = parsed(tgxSearchRequestSchema, { ...restRequest(args, call, "criteria"), filterSearch, filter });
      bill({});
      await call.admit();
      const answer = await searchTgx(call.deps, call.connection, request);
      const { errors, warnings } = answer.data.hotelX.search;
      bill({ supplierTimeout: supplierTimedOut([...(errors ?? []), ...(warnings ?? [])]) });
      return answer.data.hotelX.search;
    }),
    quote: billedField("quote", async (args, call, bill) => {
      const request = parsed(tgxQuoteRequestSchema, restRequest(args, call, "criteria"));
      bill({});
      await call.admit();
      const answer = await quoteTgx(call.deps, call.connection, request, call.meta);
      const quoted = answer.data.hotelX.quote;
      bill({ outcome: tgxOutcome(Boolean(quoted.optionQuote), quoted.errors) });
      return answer.data.hotelX.quote;
    }),
    booking: field(async (args, call) =>
      readBookingsTgx(call.deps.db, call.connection, withoutNulls(args.criteria ?? {}) as BookingCriteria),
    ),
  },
};

const mutationRoot = {
  hotelX: {
    book: billedField("book", async (args, call, bill) => {
      const request = parsed(tgxBookRequestSchema, restRequest(args, call, "input"));
      bill({});
      const { body, replayed, booked } = await bookTgx(
        call.deps,
        call.connection,
        request,
        call.meta,
        call.idempotencyKey,
      );
      call.replayed ||= replayed;
      bill({ replayed, outcome: tgxOutcome(booked, body.data.hotelX.book.errors) });
      return body.data.hotelX.book;
    }),
    cancel: billedField("cancel", async (args, call, bill) => {
      const request = parsed(tgxCancelRequestSchema, restRequest(args, call, "input"));
      bill({});
      const { body, replayed, cancelled } = await cancelTgx(
        call.deps,
        call.connection,
        request,
        call.idempotencyKey,
        call.meta.startedAt,
      );
      call.replayed ||= replayed;
      bill({ replayed, outcome: tgxOutcome(cancelled, body.data.hotelX.cancel.errors) });
      return body.data.hotelX.cancel;
    }),
    // The hold's commit, as POST /api/bookings/{bookingReference}/commit makes it (booked when the hold was).
    commit: field(async (args, call) => {
      const request = parsed(tgxCommitRequestSchema, restRequest(args, call, "input"));
      const { payload, replayed } = await commitTgx(
        call.deps,
        call.connection,
        request,
        call.meta,
        call.idempotencyKey,
      );
      call.replayed ||= replayed;
      return payload;
    }),
  },
};

/**
 * Runs one GraphQL request. A document refused before it runs (it does not parse, nests past the
 * limit, does not validate against the SDL, costs past GRAPHQL_LIMITS, its variables do not
 * coerce) is answered with its GraphQL `errors` and no `data`, nothing executed (as the sandbox,
 * and Hotel-X, answer it); a refusal met while running is the field's own (its payload `errors`,
 * or the field's GraphQL error).
 */
export const executeHotelx = async (
  request: { query: string; variables?: Record<string, unknown> | null; operationName?: string | null },
  call: GraphqlCall,
): Promise<ExecutionResult> => {
  // graphql-js's parser recurses into lists and objects: a deep literal is refused before it.
  const tooDeep = sourceRefusal(request.query);
  if (tooDeep) return { errors: [tooDeep] };
  let document: DocumentNode;
  try {
    document = parse(request.query, { maxTokens: GRAPHQL_LIMITS.tokens });
  } catch (error) {
    if (error instanceof GraphQLError && /contains more tha[nt] \d+ tokens/.test(error.message))
      return { errors: [refused(`The document has more than ${GRAPHQL_LIMITS.tokens} tokens`, "tokens")] };
    if (error instanceof GraphQLError) return { errors: [error] };
    throw error;
  }
  const schema = withPublicFields(await hotelxSchema(call.assets));
  const invalid = validate(schema, document);
  if (invalid.length) return { errors: invalid };
  const variables = request.variables ?? undefined;
  const operationName = request.operationName ?? undefined;
  const costly = documentRefusals(schema, document, variables, operationName);
  if (costly.length) return { errors: costly };
  const operation = getOperationAST(document, operationName);
  return execute({
    schema,
    document,
    rootValue: operation?.operation === "mutation" ? mutationRoot : queryRoot,
    contextValue: call,
    variableValues: variables,
    operationName,
  });
};

/**
 * The connection a GraphQL request names: the `access-code` header, or Edgestay's
 * `settings.access.code` inside a variable (Hotel-X's HotelSettingsInput has no `access`: it is read
 * and taken out before GraphQL coerces the variables). Two different codes are a 400.
 */
export const connectionCodeOf = (
  variables: Record<string, unknown> | null | undefined,
  header: string | undefined,
): { code: unknown; variables: Record<string, unknown> | undefined } => {
  const codes = new Set<unknown>(header === undefined ? [] : [header.trim()]);
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(variables ?? {})) {
    // Hotel-X's own `access` (filterSearch.access: includes, excludes) has no `code`: it stays where it is.
    const access =
      value && typeof value === "object" && !Array.isArray(value) ? (value as { access?: unknown }).access : null;
    if (access && typeof access === "object" && "code" in access) {
      const { access, ...settings } = value as { access?: { code?: unknown } };
      codes.add(typeof access?.code === "number" ? String(access.code) : access?.code);
      rest[name] = settings;
    } else rest[name] = value;
  }
  if (codes.size > 1)
    throw new ApiError("invalid_request", "The access-code header and settings.access.code name different connections");
  return { code: [...codes][0], variables: variables ? rest : undefined };
};

/** GraphQL over HTTP's own media type for an answer; application/json is the legacy one. */
export const GRAPHQL_RESPONSE_TYPE = "application/graphql-response+json";

/**
 * The status and media type of a GraphQL answer, as GraphQL over HTTP says: a client that accepts
 * application/graphql-response+json gets it, and a 400 for a document refused before it ran (no
 * `data`); under application/json (asked for, or nothing said) every answer is a 200.
 */
export const graphqlAnswerOf = (result: ExecutionResult, accept: string | undefined) => {
  const wanted = (accept ?? "")
    .split(",")
    .map((part) => part.split(";")[0]!.trim().toLowerCase())
    .includes(GRAPHQL_RESPONSE_TYPE);
  if (!wanted) return { status: 200 as const, contentType: "application/json" };
  return { status: "data" in result ? (200 as const) : (400 as const), contentType: GRAPHQL_RESPONSE_TYPE };
};
