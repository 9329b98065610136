import type { MiddlewareHandler } from "hono";
import { staticData } from "../static-data";
import { MESSAGE_SLOT } from "./envelope";

/** The error table's messages (errors.ts `errorMessages`), as a static asset: too large to bundle. */
export const ERROR_MESSAGES_ASSET = "/_data/error-messages.json";

type Messages = Record<string, readonly string[]>;
type Example = { summary?: string; value?: Record<string, unknown> };
type Response = { description?: string; content?: Record<string, { examples?: Record<string, Example> }> };
type Document = { paths?: Record<string, Record<string, { responses?: Record<string, Response> }>> };

const loadMessages = staticData(ERROR_MESSAGES_ASSET, (res) => res.json() as Promise<Messages>);

const filled = (value: Record<string, unknown> | undefined, message: string) =>
  Object.fromEntries(Object.entries(value ?? {}).map(([key, v]) => [key, v === MESSAGE_SLOT ? message : v]));

/**
 * The OpenAPI document with the messages of every documented error code: an example per message
 * (in place of errorResponses' one example per code) and the response's description listing them.
 * Without the asset the document is served as built (the examples say `{message}`).
 */
export const withErrorMessages = async <D extends Document>(document: D, assets: Fetcher): Promise<D> => {
  const messages = await loadMessages(assets).catch(() => null);
  if (!messages) return document;
  for (const item of Object.values(document.paths ?? {}))
    for (const operation of Object.values(item))
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = response.content?.["application/json"];
        if (Number(status) < 400 || !media?.examples) continue;
        const examples: Record<string, Example> = {};
        const described: string[] = [];
        for (const [code, example] of Object.entries(media.examples)) {
          const sent = messages[code] ?? [];
          sent.forEach((message, i) => {
            examples[i === 0 ? code : `${code}_${i + 1}`] = { ...example, value: filled(example.value, message) };
          });
          described.push(`\`${code}\`: ${sent.map((message) => `"${message}"`).join(" or ")}`);
        }
        media.examples = examples;
        response.description = described.join("; ");
      }
  return document;
};

/** Fills the error table's messages into the /openapi.json the route after it answers. */
export const errorMessagesFilled = (): MiddlewareHandler<{ Bindings: Env }> => async (c, next) => {
  await next();
  if (c.res.status !== 200) return;
  const document = await withErrorMessages((await c.res.json()) as Document, c.env.ASSETS);
  const headers = new Headers(c.res.headers);
  headers.delete("content-length");
  c.res = new Response(JSON.stringify(document), { status: 200, headers });
};
