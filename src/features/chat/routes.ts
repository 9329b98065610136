import { chatSessionActors } from "./tables";
import { publicBaseUrl } from "../../platform/http/public-url";
import { z } from "@hono/zod-openapi";
import { apiRoute } from "../../platform/http/api-route";
import { randomToken } from "../../platform/crypto/digest";
import { ApiError } from "../../platform/http/api-error";
import { featureRouter } from "../../platform/http/router";
import { idempotencyErrors, replayHeaders, withIdempotency } from "../../platform/idempotency/idempotency";
import { refuseUnknownFields } from "../../platform/http/unknown-fields";
import { validationError } from "../../platform/http/validation";
import { cardDataGuardErrors, noRawCardData } from "../../platform/card-data/card-data";
import { unwrap, type EventResponse, type Outcome, type SessionRecord } from "./chat-session";
import { WRITE_KINDS, type ChatEvent } from "./conversation";
import { chatAuth } from "./chat-auth";
import { chatErrorBody, sessionNotFound } from "./errors";
import { chatEventScope } from "./personal-data";
import {
  chatErrorShape,
  createSessionSchema,
  eventRequestSchema,
  eventResponseSchema,
  payloadSchemas,
  sessionIdSchema,
  sessionReadSchema,
  sessionResponseSchema,
} from "./schemas";

export const chatSecurity: Array<Record<string, string[]>> = [{ ChatApiKey: [] }, { ChatBearer: [] }, { ApiKey: [] }];

const chatHeaders = z.object({
  "x-request-id": z.string(),
  "x-ratelimit-limit": z.string(),
  "x-ratelimit-remaining": z.string(),
  "x-partner-id": z.string(),
});

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });

const createSession = apiRoute({
  operationId: "createChatSession",
  method: "post",
  path: "/sessions",
  tags: ["Chat"],
  summary: "Start a chat session for one actor (end user)",
  description: "The answer's sessionId goes into each POST /events.",
  security: chatSecurity,
  errorShape: chatErrorShape,
  // Raw card data never enters a chat session, whatever field of the body it hides in.
  middleware: [noRawCardData()] as const,
  request: { body: { required: true, ...json(createSessionSchema) } },
  errors: [...cardDataGuardErrors, "missing_partner_api_key", "invalid_partner_api_key", "rate_limit_exceeded"],
  responses: {
    201: { description: "The session, with no events yet", headers: chatHeaders, ...json(sessionResponseSchema) },
  },
});

const postEvent = apiRoute({
  operationId: "postChatEvent",
  method: "post",
  path: "/events",
  tags: ["Chat"],
  summary: "Send a message (text) or an explicit action (kind + payload) into a session",
  description: "sessionId: from POST /sessions.",
  security: chatSecurity,
  errorShape: chatErrorShape,
  middleware: [noRawCardData()] as const,
  request: { body: { required: true, ...json(eventRequestSchema) } },
  errors: [
    ...cardDataGuardErrors,
    ...idempotencyErrors,
    "missing_partner_api_key",
    "invalid_partner_api_key",
    "rate_limit_exceeded",
    "idempotency_key_required",
    "text_required",
    "destination_unreadable",
    "session_not_found",
    "actor_mismatch",
    "session_erased",
    "invalid_session_state",
    "option_expired_or_invalid",
    "option_invalid",
    "option_not_in_shortlist",
    "payment_method_not_found",
    "booking_not_in_session",
  ],
  responses: {
    200: { description: "The assistant's result", headers: chatHeaders, ...json(eventResponseSchema) },
  },
});

const readSession = apiRoute({
  operationId: "getChatSession",
  method: "get",
  path: "/sessions/{sessionId}",
  tags: ["Chat"],
  summary: "A session of yours with its event history",
  description: "sessionId: from POST /sessions.",
  security: chatSecurity,
  errorShape: chatErrorShape,
  request: {
    params: z.object({ sessionId: z.string().max(100).openapi({ example: "cs_9rQs8J1JxUs8lks0BCBpifIHEKSW9GUf" }) }),
  },
  errors: [
    "missing_partner_api_key",
    "invalid_partner_api_key",
    "rate_limit_exceeded",
    "session_not_found",
    "actor_mismatch",
  ],
  responses: {
    200: { description: "The session", headers: chatHeaders, ...json(sessionReadSchema) },
  },
});

/** The event a request describes: text is a search_query; write kinds need a key and a valid payload. */
const eventOf = (body: z.infer<typeof eventRequestSchema>): ChatEvent => {
  const kind = body.kind ?? "search_query";
  if ((WRITE_KINDS as readonly string[]).includes(kind) && !body.idempotencyKey) {
    throw new ApiError("idempotency_key_required", `idempotencyKey is required for kind=${kind}`);
  }
  // A kind reads text or a payload, never both: the other would be dropped unread.
  if (kind === "search_query") {
    if (!body.text) throw new ApiError("text_required", "text is required for kind=search_query");
    if (body.payload && Object.keys(body.payload).length > 0)
      throw new ApiError("invalid_request", "payload is not supported for kind=search_query; send text only");
    return { kind, text: body.text };
  }
  if (body.text) throw new ApiError("invalid_request", `text is not supported for kind=${kind}; send payload only`);
  // A payload is a body of its own: an unknown field is refused by name, as on every route.
  const parsed = refuseUnknownFields(payloadSchemas[kind as keyof typeof payloadSchemas]).safeParse(body.payload ?? {});
  if (!parsed.success) throw validationError(parsed.error.issues.map((i) => ({ ...i, path: ["payload", ...i.path] })));
  return { kind, payload: parsed.data } as ChatEvent;
};

/**
 * The chat API, mounted at /api/partner/v1/core-chat: its own error body (spec section 7) for every
 * error under that prefix, and every call authenticated and counted before the body is read, so even
 * a malformed body answers with x-partner-id and the rate headers (spec 4.12).
 */
export const chatRoutes = featureRouter({ errorBody: chatErrorBody, first: [chatAuth()] })
  .openapi(createSession, async (c) => {
    const body = c.req.valid("json");
    const now = new Date().toISOString();
    const sessionId = `cs_${randomToken(24)}`;
    const record: SessionRecord = {
      sessionId,
      tenantId: c.get("caller").partnerId,
      channel: { type: "partner_api", ...(body.channel?.workspaceId ? { workspaceId: body.channel.workspaceId } : {}) },
      conversation: { ...body.conversation },
      actor: { actorId: body.actor.actorId, timezoneOffsetMinutes: body.actor.timezoneOffsetMinutes ?? 0 },
      createdAt: now,
      updatedAt: now,
    };
    const created = await c.env.CHAT_SESSION.getByName(sessionId).create(record);
    // The index a data-subject erasure searches (a Durable Object cannot be found by its contents).
    await c
      .get("db")
      .insert(chatSessionActors)
      .values({ sessionId, partnerId: record.tenantId, actorId: record.actor.actorId, createdAt: now });
    return c.json({ data: { ...created, events: [] } }, 201);
  })
  .openapi(postEvent, async (c) => {
    const body = c.req.valid("json");
    const event = eventOf(body);
    const partnerId = c.get("caller").partnerId;
    const actorId = body.actor?.actorId;
    const answer = await withIdempotency(
      c.get("db"),
      // Keys are per session, as the event log they replace was.
      {
        scope: chatEventScope(body.sessionId),
        partnerId,
        key: body.idempotencyKey,
        keyName: "idempotencyKey",
        request: { actorId: actorId ?? null, event },
      },
      async () => {
        const outcome = await c.env.CHAT_SESSION.getByName(body.sessionId).handle({
          tenantId: partnerId,
          ...(actorId !== undefined ? { actorId } : {}),
          event,
          origin: publicBaseUrl(c.env, c.req.url),
          requestId: c.get("requestId"),
          d1Bookmark: c.get("d1").bookmark(),
        });
        const { d1Bookmark, ...data } = unwrap(outcome as Outcome<EventResponse & { d1Bookmark: string | null }>);
        // The event's D1 writes (a booking) are in the bookmark this request answers with.
        c.get("d1").advanceTo(d1Bookmark);
        return { status: 200, body: { data } };
      },
    );
    return c.json(answer.body as { data: EventResponse }, 200, replayHeaders(answer));
  })
  .openapi(readSession, async (c) => {
    const { sessionId } = c.req.valid("param");
    // A malformed id cannot name a session: answer without waking a Durable Object for it.
    if (!sessionIdSchema.safeParse(sessionId).success) throw sessionNotFound();
    const session = await c.env.CHAT_SESSION.getByName(sessionId).read(c.get("caller").partnerId);
    if (!session) throw sessionNotFound();
    return c.json({ data: session }, 200);
  });
