import { DurableObject } from "cloudflare:workers";

export type LedgerBooking = {
  clientReference: string;
  bookingId: string;
  supplierReference: string;
  hotelCode: string;
  hotelName: string;
  checkIn: string;
  checkOut: string;
  currency: string;
  net: number;
  /** `PENDING_COMMIT`: booked in two steps (settings.commitRequired, or the HXCOMMIT scenario), the commit not received. */
  status: "OK" | "CANCELLED" | "PENDING_COMMIT";
  holderName: string;
  holderSurname: string;
  cancelReference: string | null;
  /** What was booked, in the codes of whoever sold it (a supplier's own): null on a row older than these columns. */
  boardCode: string | null;
  roomCode: string | null;
  roomCount: number | null;
  /** What the client sent: each room's guests (JSON `[[{name, surname, age}]]`) and its remarks; null on an older row. */
  paxes: { name: string; surname: string; age: number }[][] | null;
  remarks: string | null;
};

type Row = Record<string, string | number | null>;
const toBooking = (r: Row): LedgerBooking => ({
  clientReference: String(r.client_reference),
  bookingId: String(r.booking_id),
  supplierReference: String(r.supplier_reference),
  hotelCode: String(r.hotel_code),
  hotelName: String(r.hotel_name),
  checkIn: String(r.check_in),
  checkOut: String(r.check_out),
  currency: String(r.currency),
  net: Number(r.net),
  status: r.status === "CANCELLED" || r.status === "PENDING_COMMIT" ? r.status : "OK",
  holderName: String(r.holder_name),
  holderSurname: String(r.holder_surname),
  cancelReference: r.cancel_reference === null ? null : String(r.cancel_reference),
  boardCode: r.board_code == null ? null : String(r.board_code),
  roomCode: r.room_code == null ? null : String(r.room_code),
  roomCount: r.room_count == null ? null : Number(r.room_count),
  paxes: r.paxes == null ? null : JSON.parse(String(r.paxes)),
  remarks: r.remarks == null ? null : String(r.remarks),
});

/** Columns added after the first ledger: a ledger kept from before (npm start's state folder) gains them. */
const ADDED_COLUMNS = ["board_code TEXT", "room_code TEXT", "room_count INTEGER", "paxes TEXT", "remarks TEXT"];

/**
 * The sandbox's bookings, one instance for the whole sandbox. The primary key on the client
 * reference decides duplicates: a Durable Object runs one call at a time, and the INSERT is one
 * statement, so parallel books with one client reference commit exactly once.
 */
export class SandboxLedger extends DurableObject<Record<string, unknown>> {
  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS bookings (
      client_reference TEXT PRIMARY KEY, booking_id TEXT NOT NULL UNIQUE, supplier_reference TEXT NOT NULL UNIQUE,
      hotel_code TEXT NOT NULL, hotel_name TEXT NOT NULL, check_in TEXT NOT NULL, check_out TEXT NOT NULL,
      currency TEXT NOT NULL, net REAL NOT NULL, status TEXT NOT NULL, holder_name TEXT NOT NULL, holder_surname TEXT NOT NULL,
      cancel_reference TEXT)`);
    const present = new Set(
      ctx.storage.sql
        .exec<{ name: string }>("SELECT name FROM pragma_table_info('bookings')")
        .toArray()
        .map((c) => c.name),
    );
    for (const column of ADDED_COLUMNS)
      if (!present.has(column.split(" ")[0]!)) ctx.storage.sql.exec(`ALTER TABLE bookings ADD COLUMN ${column}`);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS requests (
      client TEXT NOT NULL, operation TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (client, operation))`);
  }

  /** Counts an operation answered for a `settings.client`. */
  count(client: string, operation: string) {
    this.ctx.storage.sql.exec(
      "INSERT INTO requests VALUES (?, ?, 1) ON CONFLICT(client, operation) DO UPDATE SET count = count + 1",
      client,
      operation,
    );
  }

  /** The operations answered for a `settings.client`, by operation. */
  requests(client: string): Record<string, number> {
    const rows = this.ctx.storage.sql
      .exec<{ operation: string; count: number }>("SELECT operation, count FROM requests WHERE client = ?", client)
      .toArray();
    return Object.fromEntries(rows.map((r) => [r.operation, r.count]));
  }

  /** Commits a booking unless one with the client reference exists; then answers that one. */
  commit(booking: Omit<LedgerBooking, "cancelReference">): { committed: boolean; booking: LedgerBooking } {
    const inserted = this.ctx.storage.sql
      .exec<Row>(
        `INSERT INTO bookings (client_reference, booking_id, supplier_reference, hotel_code, hotel_name, check_in, check_out,
           currency, net, status, holder_name, holder_surname, board_code, room_code, room_count, paxes, remarks)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(client_reference) DO NOTHING RETURNING *`,
        booking.clientReference,
        booking.bookingId,
        booking.supplierReference,
        booking.hotelCode,
        booking.hotelName,
        booking.checkIn,
        booking.checkOut,
        booking.currency,
        booking.net,
        booking.status,
        booking.holderName,
        booking.holderSurname,
        booking.boardCode,
        booking.roomCode,
        booking.roomCount,
        booking.paxes === null ? null : JSON.stringify(booking.paxes),
        booking.remarks,
      )
      .toArray();
    if (inserted[0]) return { committed: true, booking: toBooking(inserted[0]) };
    return { committed: false, booking: this.find({ clientReference: booking.clientReference })! };
  }

  find(by: { clientReference?: string; supplierReference?: string; bookingId?: string }): LedgerBooking | null {
    const [row] = this.ctx.storage.sql
      .exec<Row>(
        "SELECT * FROM bookings WHERE client_reference = ? OR supplier_reference = ? OR booking_id = ? LIMIT 1",
        by.clientReference ?? null,
        by.supplierReference ?? null,
        by.bookingId ?? null,
      )
      .toArray();
    return row ? toBooking(row) : null;
  }

  /** Commits a booking made in two steps (PENDING_COMMIT becomes OK); any other booking is answered as it is. */
  confirm(by: { clientReference?: string; supplierReference?: string }): LedgerBooking | null {
    const found = this.find(by);
    if (found?.status !== "PENDING_COMMIT") return found;
    const [row] = this.ctx.storage.sql
      .exec<Row>("UPDATE bookings SET status = 'OK' WHERE client_reference = ? RETURNING *", found.clientReference)
      .toArray();
    return toBooking(row!);
  }

  /** Cancels once; cancelling again answers the same cancellation. */
  cancel(by: { clientReference?: string; supplierReference?: string; bookingId?: string }): LedgerBooking | null {
    const found = this.find(by);
    if (!found) return null;
    if (found.status === "CANCELLED") return found;
    const [row] = this.ctx.storage.sql
      .exec<Row>(
        "UPDATE bookings SET status = 'CANCELLED', cancel_reference = ? WHERE client_reference = ? RETURNING *",
        `CXL-${found.supplierReference}`,
        found.clientReference,
      )
      .toArray();
    return toBooking(row!);
  }
}
