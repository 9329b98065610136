import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  GraphQLError,
  getOperationAST,
  type OperationDefinitionNode,
  parse,
  type TypeNode,
  validate,
} from "graphql";
import type { z } from "@hono/zod-openapi";
import { ApiError } from "../../platform/http/api-error";
import { validationError } from "../../platform/http/validation";
import { loggableError } from "../../platform/observability/loggable-error";
import type { CoreConnection, UsageOperation } from "../connections";
import { type BookingDeps, type SandboxScenario, supplierTimedOut } from "../booking";
import {
  bookConnection,
  bookingCallConnection,
  cancelConnection,
  type HotelxRouting,
  quoteConnection,
  searchConnections,
} from "./hotelx-access";
import { documentRefusals, GRAPHQL_LIMITS, refused, sourceRefusal } from "./hotelx-graphql-budget";
import { answeredOn, connectionOfBooking, withPublicFields } from "./hotelx-fields";
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
import { hotelxErrorOf, tgxOutcome } from "./tgx-answers";
import { type TgxError, tgxSearchRequestSchema } from "./tgx-schemas";
import { searchTgxAccesses } from "./tgx-search";

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
  /** The caller's partner, and Edgestay's name for the connection (the access-code header; settings.access.code once read). */
  routing: HotelxRouting;
  meta: { requestId: string; startedAt: number; scenario: SandboxScenario | null };
  idempotencyKey: string | undefined;
  /** Counts a search or quote against the connection's rate limit; throws 429 past it. */
  admit: (connection: CoreConnection) => Promise<void>;
  /** Counts a billable field's call on its connection, as the REST routes do (success or its error code). */
  count: (billing: {
    connection: CoreConnection;
    operation: UsageOperation;
    outcome: string;
    supplierTimeout?: boolean;
  }) => void;
  /** Set when a book or cancel answered a stored (idempotent) answer. */
  replayed: boolean;
  /** The Worker's static assets, where the Hotel-X SDL is read from. */
  assets: Fetcher;
  /** The connection each answered object was made on (hotelx-fields.ts `answeredOn`): its markup, its code. */
  owners?: WeakMap<object, CoreConnection>;
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

/** A fault of a field: logged, never shown; GraphQL's error with the request id. */
const fieldFault = (error: unknown, call: GraphqlCall): GraphQLError => {
  if (error instanceof GraphQLError) return error;
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

/** The API's refusals about the connection: Hotel-X's ACCESS errors. */
const ACCESS_CODES = new Set([
  "no_connection",
  "malformed_connection_code",
  "unknown_connection",
  "connection_access_denied",
  "invalid_connection_code",
  "rate_limit_exceeded",
]);

/**
 * A refusal met while a field runs (its arguments, its connection, its rate limit, the operation's
 * outcome) as a Hotel-X `Error` in its payload, where Hotel-X clients read it (issue 40): the
 * outcome's code when it has one, else the API's code in capitals.
 */
const payloadErrorOf = (error: ApiError): TgxError =>
  hotelxErrorOf(error) ?? {
    code: error.code.toUpperCase(),
    type: ACCESS_CODES.has(error.code) ? "ACCESS" : "CLIENT",
    description: error.message,
  };

type Args = { settings?: Record<string, unknown> | null } & Record<string, unknown>;
type Field = (args: Args, call: GraphqlCall) => Promise<unknown>;
/** A field: a refusal is its payload's `errors` (`empty`: the payload's list fields, empty), a fault GraphQL's error. */
const field =
  (resolve: Field, empty: Record<string, unknown> = {}) =>
  async (args: Args, call: GraphqlCall): Promise<unknown> => {
    try {
      return await resolve(args, call);
    } catch (error) {
      if (error instanceof ApiError) return { ...empty, errors: [payloadErrorOf(error)], warnings: [] };
      throw fieldFault(error, call);
    }
  };

/** The REST request a field stands for: its arguments, its settings (their `access` read before, into `routing.named`). */
const restRequest = (args: Args, name: "criteria" | "input", more: Record<string, unknown> = {}) => ({
  [name]: args[name],
  settings: withoutNulls(args.settings ?? {}) as object,
  ...more,
});

type Billing = { connection: CoreConnection; outcome?: string; supplierTimeout?: boolean; replayed?: boolean };
/**
 * A billable field: counted once its arguments parsed and its connection is known (it calls `bill`,
 * as a REST route's connection is judged after its body), with how it ended: its outcome, or the
 * code of the error it threw.
 */
const billedField = (
  operation: UsageOperation,
  resolve: (args: Args, call: GraphqlCall, bill: (billing: Partial<Billing>) => void) => Promise<unknown>,
  empty?: Record<string, unknown>,
) =>
  field(async (args, call) => {
    let billing: Partial<Billing> = {};
    const bill = (more: Partial<Billing>) => {
      billing = { ...billing, ...more };
    };
    try {
      const result = await resolve(args, call, bill);
      const { connection, ...done } = billing;
      if (connection && !done.replayed)
        call.count({
          connection,
          operation,
          outcome: done.outcome ?? "success",
          supplierTimeout: done.supplierTimeout,
        });
      return result;
    } catch (error) {
      if (billing.connection)
        call.count({
          connection: billing.connection,
          operation,
          outcome: error instanceof ApiError ? error.code : "internal_error",
        });
      throw error;
    }
  }, empty);

const queryRoot = {
  hotelX: {
    // Each access it runs on is counted as one search on its connection.
    search: field(
      async (args, call) => {
        const filterSearch = args.filterSearch ?? undefined;
        const filter = args.filter ?? undefined;
        const request = parsed(tgxSearchRequestSchema, restRequest(args, "criteria", { filterSearch, filter }));
        const access = (request.filterSearch ?? request.filter)?.access;
        const connections = await searchConnections(call.routing, access);
        const searched = await searchTgxAccesses(
          call.deps,
          connections,
          request,
          call.admit,
          call.routing.named !== undefined,
        ).catch((error: unknown) => {
          // One access: its refusal (a 429) is the field's, counted on it as the REST route counts it.
          if (connections[0] && error instanceof ApiError)
            call.count({ connection: connections[0], operation: "search", outcome: error.code });
          throw error;
        });
        const { answer, searches } = searched;
        for (const each of searches) {
          if ("refused" in each) {
            call.count({ connection: each.connection, operation: "search", outcome: each.refused.code });
            continue;
          }
          const problems = [...(each.search.errors ?? []), ...(each.search.warnings ?? [])];
          call.count({
            connection: each.connection,
            operation: "search",
            outcome: "success",
            supplierTimeout: supplierTimedOut(problems),
          });
        }
        const byCode = new Map(connections.map((c) => [String(c.code), c]));
        for (const option of answer.data.hotelX.search.options) answeredOn(call, option, byCode.get(option.accessCode));
        return answer.data.hotelX.search;
      },
      { options: [] },
    ),
    quote: billedField("quote", async (args, call, bill) => {
      const request = parsed(tgxQuoteRequestSchema, restRequest(args, "criteria"));
      const connection = await quoteConnection(call.routing, request.criteria.optionRefId);
      bill({ connection });
      await call.admit(connection);
      const answer = await quoteTgx(call.deps, connection, request, call.meta);
      const quoted = answer.data.hotelX.quote;
      bill({ outcome: tgxOutcome(Boolean(quoted.optionQuote), quoted.errors) });
      answeredOn(call, quoted, connection);
      return answer.data.hotelX.quote;
    }),
    booking: field(
      async (args, call) => {
        const read = await readBookingsTgx(call.routing, withoutNulls(args.criteria ?? {}) as BookingCriteria);
        // Each booking was made on a connection of the caller's: its own (its markup, its accessCode).
        await Promise.all(read.bookings.map(async (b) => answeredOn(call, b, await connectionOfBooking(call, b))));
        return read;
      },
      { bookings: [] },
    ),
  },
};

const mutationRoot = {
  hotelX: {
    book: billedField("book", async (args, call, bill) => {
      const request = parsed(tgxBookRequestSchema, restRequest(args, "input"));
      const connection = await bookConnection(call.deps, call.routing, request.input);
      bill({ connection });
      const { body, replayed, booked } = await bookTgx(call.deps, connection, request, call.meta, call.idempotencyKey);
      call.replayed ||= replayed;
      bill({ replayed, outcome: tgxOutcome(booked, body.data.hotelX.book.errors) });
      answeredOn(call, body.data.hotelX.book, connection);
      return body.data.hotelX.book;
    }),
    cancel: billedField("cancel", async (args, call, bill) => {
      const request = parsed(tgxCancelRequestSchema, restRequest(args, "input"));
      const connection = await cancelConnection(call.routing, request.input);
      bill({ connection });
      const { body, replayed, cancelled } = await cancelTgx(
        call.deps,
        call.routing,
        request,
        call.idempotencyKey,
        call.meta.startedAt,
      );
      call.replayed ||= replayed;
      bill({ replayed, outcome: tgxOutcome(cancelled, body.data.hotelX.cancel.errors) });
      answeredOn(call, body.data.hotelX.cancel, connection);
      return body.data.hotelX.cancel;
    }),
    // The hold's commit, as POST /api/bookings/{bookingReference}/commit makes it (booked when the hold was).
    commit: field(async (args, call) => {
      const request = parsed(tgxCommitRequestSchema, restRequest(args, "input"));
      const connection = await bookingCallConnection(call.routing, request.input.accessCode, undefined);
      const { payload, replayed } = await commitTgx(call.deps, connection, request, call.meta, call.idempotencyKey);
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
  const operationName = request.operationName ?? undefined;
  const operation = getOperationAST(document, operationName);
  const routed = edgestayAccessOf(operation, request.variables, call.routing.named);
  if (routed instanceof GraphQLError) return { errors: [routed] };
  call.routing = { ...call.routing, named: routed.code };
  const variables = routed.variables;
  const costly = documentRefusals(schema, document, variables, operationName);
  if (costly.length) return { errors: costly };
  return execute({
    schema,
    document,
    rootValue: operation?.operation === "mutation" ? mutationRoot : queryRoot,
    contextValue: call,
    variableValues: variables,
    operationName,
  });
};

/** A variable's named type, through its non-null wrapper. */
const namedType = (type: TypeNode): string | null =>
  type.kind === "NamedType" ? type.name.value : type.kind === "NonNullType" ? namedType(type.type) : null;

/**
 * Edgestay's name for the connection in a GraphQL request: the `access-code` header, or
 * `settings.access.code` in a variable of type HotelSettingsInput (which has no `access`: it is read
 * and taken out before GraphQL coerces the variables). Only those: Hotel-X's own `access` (a
 * search's `filterSearch.access`) is the field's to read. Two different codes are refused before
 * anything runs, as a variable that does not coerce is.
 */
export const edgestayAccessOf = (
  operation: OperationDefinitionNode | null | undefined,
  variables: Record<string, unknown> | null | undefined,
  header: unknown,
): { code: unknown; variables: Record<string, unknown> | undefined } | GraphQLError => {
  const settings = new Set(
    (operation?.variableDefinitions ?? [])
      .filter((d) => namedType(d.type) === "HotelSettingsInput")
      .map((d) => d.variable.name.value),
  );
  const codes = new Set<unknown>(typeof header === "string" ? [header.trim()] : []);
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(variables ?? {})) {
    if (settings.has(name) && value && typeof value === "object" && !Array.isArray(value) && "access" in value) {
      const { access, ...others } = value as { access?: { code?: unknown } };
      const code = access?.code;
      if (code !== undefined && code !== null) codes.add(typeof code === "number" ? String(code) : code);
      rest[name] = others;
    } else rest[name] = value;
  }
  if (codes.size > 1)
    return new GraphQLError("The access-code header and settings.access.code name different connections", {
      extensions: { code: "invalid_request" },
    });
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
