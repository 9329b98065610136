import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { keyedHash, sha256Hex } from "../../platform/crypto/digest";
import { database, type Db } from "../../platform/db/client";
import { radarChecks } from "./tables";

export const DEFAULT_RADAR_RETENTION_DAYS = 90;
const DAY_MS = 24 * 60 * 60_000;
/** Rows rewritten per statement batch, and per run (the next run takes the rest). */
const RETENTION_CHUNK = 100;
const RETENTION_RUN_LIMIT = 2_000;

export const ERASED = "[erased]";

type StoredInputs = {
  request: {
    booker?: { first_name?: string; last_name?: string; email?: string; phone?: string };
    guest?: { first_name?: string; last_name?: string };
    context?: { ip?: string; user_id?: string; booker_uuid?: string };
    payment?: {
      billing_address?: { line1?: string; city?: string; state?: string; postal_code?: string; country?: string };
    };
  };
};

/** The personal values of a stored check: booker and guest names, e-mail, phone, IP, street address. */
const personalFields = (inputs: StoredInputs) => {
  const r = inputs.request;
  const address = r.payment?.billing_address;
  return [
    [r.booker, ["first_name", "last_name", "email", "phone"]],
    [r.guest, ["first_name", "last_name"]],
    [r.context, ["ip"]],
    // The billing country stays: the country rules are reviewed against it, and it names no one.
    [address, ["line1", "city", "state", "postal_code"]],
  ] as Array<[Record<string, string | undefined> | undefined, string[]]>;
};

export const retentionDays = (env: { RADAR_RETENTION_DAYS?: string }) => {
  const days = Number(env.RADAR_RETENTION_DAYS);
  return Number.isInteger(days) && days > 0 ? days : DEFAULT_RADAR_RETENTION_DAYS;
};

/**
 * Replaces the personal values of checks older than the retention with keyed hashes ("hmac:..."):
 * a reviewer can still see that two checks shared an e-mail, and the velocity columns were keyed
 * hashes from the start, so the rules keep matching. Returns how many checks were rewritten.
 */
export const hashOldRadarPii = async (db: Db, piiKey: string, days: number, now: number): Promise<number> => {
  let changed = 0;
  while (changed < RETENTION_RUN_LIMIT) {
    const rows = await db
      .select({ id: radarChecks.id, inputs: radarChecks.inputs })
      .from(radarChecks)
      .where(and(isNull(radarChecks.piiRemovedAt), lt(radarChecks.checkedAtMs, now - days * DAY_MS)))
      .limit(RETENTION_CHUNK);
    if (rows.length === 0) break;
    // Hashed first, then the statements built: a drizzle query is a thenable and would run if returned from an async function.
    const rewritten = await Promise.all(
      rows.map(async (row) => {
        const inputs = JSON.parse(row.inputs) as StoredInputs;
        for (const [holder, keys] of personalFields(inputs)) {
          for (const key of keys) {
            const value = holder?.[key];
            if (holder && typeof value === "string" && !value.startsWith("hmac:"))
              holder[key] = `hmac:${await keyedHash(piiKey, value.trim().toLowerCase())}`;
          }
        }
        return { id: row.id, inputs: JSON.stringify(inputs) };
      }),
    );
    const updates = rewritten.map((row) =>
      db.update(radarChecks).set({ inputs: row.inputs, piiRemovedAt: now }).where(eq(radarChecks.id, row.id)),
    );
    await db.batch(updates as [(typeof updates)[number], ...typeof updates]);
    changed += rows.length;
  }
  return changed;
};

/** Scheduled upkeep: personal data in radar checks older than RADAR_RETENTION_DAYS becomes keyed hashes. */
export const radarPiiRetention = {
  name: "radar-pii-retention",
  run: (env: Env, now: Date): Promise<number> =>
    hashOldRadarPii(database(env.DB), env.PII_HASH_SECRET, retentionDays(env), now.getTime()),
};

export type ErasedRadarSubject = {
  checks: number;
  /** The partner's own ids of this person (context.user_id, booker_uuid), to find their chat sessions. */
  partnerUserIds: Array<{ partnerId: string; userId: string }>;
};

/**
 * Erases one person from every partner's radar checks: names become [erased], e-mail, phone, IP and
 * street address are removed, identity hashes cleared; decision, score and references stay.
 */
export const eraseRadarSubject = async (
  db: Db,
  piiKey: string,
  email: string,
  now: number,
): Promise<ErasedRadarSubject> => {
  const normalized = email.trim().toLowerCase();
  // Keyed hash today; plain SHA-256 for checks stored before keyed hashes; the raw value if not yet hashed.
  const rows = await db
    .select({ id: radarChecks.id, partnerId: radarChecks.partnerId, inputs: radarChecks.inputs })
    .from(radarChecks)
    .where(
      or(
        inArray(radarChecks.emailHash, [await keyedHash(piiKey, normalized), await sha256Hex(normalized)]),
        sql`lower(json_extract(${radarChecks.inputs}, '$.request.booker.email')) = ${normalized}`,
      ),
    );
  const partnerUserIds = new Map<string, { partnerId: string; userId: string }>();
  const updates = rows.map((row) => {
    const inputs = JSON.parse(row.inputs) as StoredInputs;
    const { booker, guest, context, payment } = inputs.request;
    for (const id of [context?.user_id, context?.booker_uuid]) {
      if (id) partnerUserIds.set(`${row.partnerId}\n${id}`, { partnerId: row.partnerId, userId: id });
    }
    if (booker) {
      delete booker.email;
      delete booker.phone;
      if (booker.first_name !== undefined) booker.first_name = ERASED;
      if (booker.last_name !== undefined) booker.last_name = ERASED;
    }
    if (guest?.first_name !== undefined) guest.first_name = ERASED;
    if (guest?.last_name !== undefined) guest.last_name = ERASED;
    if (context) delete context.ip;
    if (payment?.billing_address)
      payment.billing_address = {
        ...(payment.billing_address.country ? { country: payment.billing_address.country } : {}),
      };
    return db
      .update(radarChecks)
      .set({ inputs: JSON.stringify(inputs), emailHash: null, ipHash: null, piiRemovedAt: now })
      .where(eq(radarChecks.id, row.id));
  });
  if (updates.length > 0) await db.batch(updates as [(typeof updates)[number], ...typeof updates]);
  return { checks: rows.length, partnerUserIds: [...partnerUserIds.values()] };
};
