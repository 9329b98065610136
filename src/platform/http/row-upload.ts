import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError } from "./api-error";
import { CHARSET_MESSAGE, deepestNesting, MAX_BODY_DEPTH } from "./json-body";

/**
 * A bulk upload of rows (an operator's map import): the one exception to the body gate's 1 MiB.
 * Only routes that declare `body: "rows"` in `apiRoute` take it; every other body keeps `jsonBody`.
 */
export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;
export const MAX_UPLOAD_ROWS = 50_000;
export const NDJSON = "application/x-ndjson";
export const UPLOAD_CONTENT_TYPE_MESSAGE =
  "Content-Type must be application/json (an array of rows) or application/x-ndjson (one row a line)";

const jsonType = /^application\/([\w.-]+\+)?json$/i;
const charsetParameter = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

const tooManyBytes = () =>
  new ApiError("body_too_large", `Request body too large: the limit is ${MAX_UPLOAD_BYTES} bytes`);
const tooManyRows = () =>
  new ApiError("body_too_large", `Request body too large: the limit is ${MAX_UPLOAD_ROWS} rows`);

type UploadFormat = "json" | "ndjson";

const formatOf = (contentType: string | undefined): UploadFormat => {
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  const format = mediaType === NDJSON ? "ndjson" : jsonType.test(mediaType) ? "json" : null;
  if (!format) throw new ApiError("unsupported_content_type", UPLOAD_CONTENT_TYPE_MESSAGE);
  const charset = charsetParameter.exec(contentType ?? "")?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset))
    throw new ApiError("unsupported_content_type", CHARSET_MESSAGE);
  return format;
};

/**
 * The gate of an upload route, in place of `jsonBody`: the content type, and a declared length
 * over the limit refused before a byte is read. The body itself is read by the handler
 * (`readUploadRows`), counting bytes as they come, since a length is not always declared.
 */
export const rowUploadGate = (): MiddlewareHandler<AppEnv> =>
  async function rowUploadGate(c, next) {
    const length = Number(c.req.header("content-length") ?? "0");
    if (length > MAX_UPLOAD_BYTES) throw tooManyBytes();
    formatOf(c.req.header("content-type"));
    return next();
  };

/** One row as sent: its number (from 1, in upload order) and its JSON value, or `undefined` for a line that is not JSON. */
export type UploadedRow = { row: number; value: unknown };

/** The body's chunks as text, throwing 413 past MAX_UPLOAD_BYTES (the rest is never read). */
async function* textChunks(body: ReadableStream<Uint8Array> | null) {
  if (!body) return;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > MAX_UPLOAD_BYTES) throw tooManyBytes();
      yield decoder.decode(value, { stream: true });
    }
    yield decoder.decode();
  } finally {
    // A refused upload stops here: the rest of the stream is not read.
    await reader.cancel().catch(() => {});
  }
}

const parsedLine = (line: string): unknown => {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
};

/**
 * The rows of an upload, read from the request's stream. NDJSON is parsed a line at a time as the
 * bytes arrive (blank lines are skipped and not numbered; a line that is not JSON is a row whose
 * value is `undefined`, for the caller to reject by number); a JSON array is read up to the byte
 * limit, then parsed whole. Either way at most MAX_UPLOAD_ROWS rows, else 413. An empty body is no rows.
 */
export const readUploadRows = async (request: Request): Promise<UploadedRow[]> => {
  const format = formatOf(request.headers.get("content-type") ?? undefined);
  const rows: UploadedRow[] = [];
  if (format === "ndjson") {
    // The line being read, in pieces: each chunk is searched once, so a long line costs linear time.
    let pieces: string[] = [];
    const take = () => {
      const line = pieces.join("");
      pieces = [];
      if (line.trim().length === 0) return;
      if (rows.length === MAX_UPLOAD_ROWS) throw tooManyRows();
      rows.push({ row: rows.length + 1, value: parsedLine(line) });
    };
    for await (const chunk of textChunks(request.body)) {
      let start = 0;
      for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
        pieces.push(chunk.slice(start, end));
        take();
        start = end + 1;
      }
      if (start < chunk.length) pieces.push(chunk.slice(start));
    }
    take();
    return rows;
  }
  let text = "";
  for await (const chunk of textChunks(request.body)) text += chunk;
  if (text.trim().length === 0) return rows;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError("malformed_json", "Malformed JSON in request body");
  }
  if (!Array.isArray(parsed)) throw new ApiError("invalid_request", "Request body: must be an array of rows");
  if (parsed.length > MAX_UPLOAD_ROWS) throw tooManyRows();
  if (deepestNesting(parsed, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
    throw new ApiError("body_too_deep", "Request body nests too deeply");
  }
  return parsed.map((value, i) => ({ row: i + 1, value }));
};
