import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../../platform/db/client";
import { supplierBoardMap } from "../tables";
import { requireSupplier } from "./supplier-check";
import { chunked } from "./upload";

/** The boards Edgestay names (Hotel-X's usual codes): a supplier's board codes map to these. */
export const MAPPED_BOARDS = ["RO", "BB", "HB", "FB", "AI"] as const;
export type MappedBoard = (typeof MAPPED_BOARDS)[number];
export const MAX_BOARD_CODES = 500;

/**
 * A supplier's board code as it writes it (`SA`, `R/O`, `B&B`): unlike hotel and room codes it never
 * travels in a path, so any printable text, no control character and no space at either end.
 */
const boardCode = z
  .string()
  .max(40)
  .regex(/^[^\s\p{C}](?:[^\p{C}]*[^\s\p{C}])?$/u, "must be 1 to 40 printable characters, no space at either end");
export const boardMapSchema = z
  .record(boardCode, z.enum(MAPPED_BOARDS))
  .refine((map) => Object.keys(map).length <= MAX_BOARD_CODES, `at most ${MAX_BOARD_CODES} board codes`)
  .openapi("BoardMap", {
    description:
      "Supplier board code -> Edgestay board code. A board not listed passes through under the supplier's code and name.",
    example: { SA: "RO", AD: "BB", MP: "HB", PC: "FB", TI: "AI" },
  });
export type BoardMap = Record<string, MappedBoard>;

export const readBoardMap = async (db: Db, supplierCode: string): Promise<BoardMap> => {
  await requireSupplier(db, supplierCode);
  const rows = await db
    .select({ from: supplierBoardMap.supplierBoardCode, to: supplierBoardMap.boardCode })
    .from(supplierBoardMap)
    .where(eq(supplierBoardMap.supplierCode, supplierCode))
    .orderBy(supplierBoardMap.supplierBoardCode);
  return Object.fromEntries(rows.map((row) => [row.from, row.to]));
};

/** Replaces a supplier's whole board map in one batch; answers the map now in force. */
export const replaceBoardMap = async (db: Db, supplierCode: string, map: BoardMap): Promise<BoardMap> => {
  await requireSupplier(db, supplierCode);
  const rows = Object.entries(map).map(([supplierBoardCode, code]) => ({
    supplierCode,
    supplierBoardCode,
    boardCode: code,
  }));
  // Three parameters a row: 30 rows a statement stays under D1's 100 bound parameters.
  const statements: BatchItem<"sqlite">[] = [
    db.delete(supplierBoardMap).where(eq(supplierBoardMap.supplierCode, supplierCode)),
    ...chunked(rows, 30).map((chunk) => db.insert(supplierBoardMap).values(chunk)),
  ];
  await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return readBoardMap(db, supplierCode);
};
