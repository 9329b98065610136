import { z } from "@hono/zod-openapi";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../../platform/db/client";
import { ApiError } from "../../../platform/http/api-error";
import type { UploadEntry } from "../../../platform/http/row-upload";

/** Why a row of a map import was not applied (the rest of the upload is). */
export const REJECTION_REASONS = [
  "invalid_row",
  "duplicate_in_upload",
  "unknown_accommodation",
  "already_mapped_elsewhere",
  "hotel_not_mapped",
  "unknown_room",
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];
export type Rejection = { row: number; reason: RejectionReason; message: string };
export type ImportAnswer = { inserted: number; updated: number; unchanged: number; rejected: Rejection[] };

/** A supplier's own code of a hotel or room: it travels in paths and in its requests, so plain characters only. */
export const supplierItemCode = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
    "must be 1 to 64 of A-Z a-z 0-9 . _ : - (starting with a letter or digit)",
  );
export const edgestayCode = z.string().min(1).max(64);

/** Rows of one map import: those that read as `schema`, each with its number. */
export type Numbered<T> = T & { row: number };

/**
 * The rows of an upload that read as `schema`, in upload order; the others are rejected as
 * `invalid_row` (first problem named), and a row repeating an earlier row's `keys` as
 * `duplicate_in_upload` (the earlier one is applied: an upload reads top to bottom).
 */
export const readRows = <T extends Record<string, unknown>>(
  uploaded: UploadEntry[],
  schema: z.ZodType<T>,
  keys: Array<{ name: string; of: (row: T) => string }>,
  rejected: Rejection[],
): Array<Numbered<T>> => {
  const seen = keys.map(() => new Map<string, number>());
  const rows: Array<Numbered<T>> = [];
  for (const { row, value } of uploaded) {
    if (value === undefined) {
      rejected.push({ row, reason: "invalid_row", message: "not JSON" });
      continue;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = issue.path.join(".");
      rejected.push({ row, reason: "invalid_row", message: path ? `${path}: ${issue.message}` : issue.message });
      continue;
    }
    const duplicate = keys.findIndex((key, i) => seen[i]!.has(key.of(parsed.data)));
    if (duplicate !== -1) {
      const key = keys[duplicate]!;
      const earlier = seen[duplicate]!.get(key.of(parsed.data));
      rejected.push({
        row,
        reason: "duplicate_in_upload",
        message: `${key.name} ${key.of(parsed.data)} is also on row ${earlier}`,
      });
      continue;
    }
    keys.forEach((key, i) => {
      seen[i]!.set(key.of(parsed.data), row);
    });
    rows.push({ ...parsed.data, row });
  }
  return rows;
};

/** Values in groups small enough for one JSON parameter each (D1 binds at most 100 parameters, each up to 2 MB). */
export const JSON_CHUNK = 5_000;
export const chunked = <T>(values: T[], size = JSON_CHUNK): T[][] => {
  const chunks: T[][] = [];
  for (let i = 0; i < values.length; i += size) chunks.push(values.slice(i, i + size));
  return chunks;
};

/** An opaque page cursor: the last row's key, base64url JSON (operator data, nothing to forge). */
export const cursorOf = (key: string[]) =>
  btoa(JSON.stringify(key)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
export const keyOfCursor = (cursor: string, length: number): string[] | null => {
  try {
    const key: unknown = JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")));
    return Array.isArray(key) && key.length === length && key.every((part) => typeof part === "string") ? key : null;
  } catch {
    return null;
  }
};

/** The page of a map read: rows per page and the cursor (its longest form and an example of it). */
export const mapPageQuery = (cursor: { max: number; example: string }) => ({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .openapi({ description: "Rows per page (default 100, at most 1,000)", example: 100 }),
  cursor: z
    .string()
    .max(cursor.max)
    .optional()
    .openapi({ description: "nextCursor of the previous page", example: cursor.example }),
});

/**
 * Writes an upload's accepted rows in one D1 batch, all or nothing. `raced` tells the failure a
 * parallel upload causes by getting there first (a constraint it broke): a 409, nothing written.
 */
export const writeUpload = async (db: Db, statements: BatchItem<"sqlite">[], raced: (err: unknown) => boolean) => {
  if (statements.length === 0) return;
  try {
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  } catch (err) {
    if (raced(err))
      throw new ApiError(
        "conflict",
        "The map changed while this upload was applied; nothing was written, send it again",
      );
    throw err;
  }
};
