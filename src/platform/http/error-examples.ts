import { MESSAGE_SLOT } from "./envelope";

type Messages = Record<string, readonly string[]>;
type Example = { summary?: string; value?: Record<string, unknown> };
type Response = { description?: string; content?: Record<string, { examples?: Record<string, Example> }> };
type Document = { paths?: Record<string, Record<string, { responses?: Record<string, Response> }>> };

const filled = (value: Record<string, unknown> | undefined, message: string) =>
  Object.fromEntries(Object.entries(value ?? {}).map(([key, v]) => [key, v === MESSAGE_SLOT ? message : v]));

/**
 * The OpenAPI document with the messages of every documented error code (errors.ts `errorMessages`):
 * an example per message (in place of errorResponses' one example per code) and the response's
 * description listing them. Done when the document is built (platform/docs/openapi-document.ts),
 * so the messages never ride in the Worker's upload.
 */
export const withErrorMessages = <D extends object>(document: D, messages: Messages): D => {
  for (const item of Object.values((document as Document).paths ?? {}))
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
