import { and, asc, eq, exists, ne, or } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { BearerUser } from "../../platform/app-env";
import { requireAdmin } from "../../platform/auth/bearer";
import type { Db } from "../../platform/db/client";
import { isUniqueViolation } from "../../platform/db/constraint";
import { users, type User } from "../../platform/db/schema";
import { hashPassword } from "../../platform/crypto/password";
import { ApiError } from "../../platform/http/api-error";

export type UserProfile = {
  id: string;
  partnerId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  phoneNumber: string | null;
  role: "admin" | "user";
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
};

export type NewUser = {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
  phoneNumber?: string;
  role: "admin" | "user";
};

/** What reads return: everything but the password hash. */
export const userProfile = (row: User): UserProfile => ({
  id: row.id,
  partnerId: row.partnerId,
  email: row.email,
  firstName: row.firstName,
  lastName: row.lastName,
  phoneNumber: row.phoneNumber,
  role: row.role,
  isActive: row.isActive,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** Spec section 5 rule 3. */
/** The row for a new user: e-mail lower-cased, the MD5 string lower-cased and PBKDF2-hashed. */
export const newUserRow = async (partnerId: string, input: NewUser) => ({
  id: `usr_${crypto.randomUUID().replaceAll("-", "")}`,
  partnerId,
  email: input.email.trim().toLowerCase(),
  passwordHash: await hashPassword(input.password.toLowerCase()),
  firstName: input.firstName ?? null,
  lastName: input.lastName ?? null,
  phoneNumber: input.phoneNumber ?? null,
  role: input.role,
});

/** A duplicate e-mail is caught by the unique indexes, never by a check before the insert. */
export const emailConflict = (err: unknown) =>
  isUniqueViolation(err, "users.email") ? new ApiError("conflict", "Conflict", { field: "email" }) : err;

const findUser = async (db: Db, id: string) => (await db.select().from(users).where(eq(users.id, id)).limit(1))[0];

export const getOwnProfile = async (db: Db, caller: BearerUser): Promise<UserProfile> => {
  const row = await findUser(db, caller.userId);
  if (!row) throw new ApiError("user_not_found", "User not found");
  return userProfile(row);
};

export const listPartnerUsers = async (db: Db, partnerId: string): Promise<UserProfile[]> =>
  (
    await db.select().from(users).where(eq(users.partnerId, partnerId)).orderBy(asc(users.createdAt), asc(users.id))
  ).map(userProfile);

export const createPartnerUser = async (db: Db, caller: BearerUser, input: NewUser): Promise<UserProfile> => {
  requireAdmin(caller);
  try {
    const [row] = await db
      .insert(users)
      .values(await newUserRow(caller.partnerId, input))
      .returning();
    return userProfile(row!);
  } catch (err) {
    throw emailConflict(err);
  }
};

/** The target of an admin action: 404 when missing, 403 with `otherPartnerMessage` when not the caller's partner. */
const targetUser = async (db: Db, caller: BearerUser, id: string, otherPartnerMessage: string) => {
  requireAdmin(caller);
  const row = await findUser(db, id);
  if (!row) throw new ApiError("user_not_found", "User not found");
  if (row.partnerId !== caller.partnerId) throw new ApiError("other_partner", otherPartnerMessage);
  return row;
};

/**
 * Spec 4.9: the target must be of the caller's partner, whatever its role (an admin may delete
 * another admin); never oneself, and never the partner's last active admin. That last rule is in
 * the delete's own condition, so two admins deleting each other at the same moment cannot both
 * succeed: the second statement finds no other active admin left and deletes nothing (409).
 */
export const deletePartnerUser = async (db: Db, caller: BearerUser, id: string): Promise<void> => {
  const row = await targetUser(db, caller, id, "Cannot delete user from another partner");
  if (row.id === caller.userId) throw new ApiError("cannot_delete_self", "Cannot delete your own user");
  const others = alias(users, "others");
  const anotherActiveAdmin = exists(
    db
      .select({ id: others.id })
      .from(others)
      .where(
        and(
          eq(others.partnerId, caller.partnerId),
          eq(others.role, "admin"),
          eq(others.isActive, true),
          ne(others.id, row.id),
        ),
      ),
  );
  const [deleted] = await db
    .delete(users)
    .where(
      and(eq(users.id, row.id), eq(users.partnerId, caller.partnerId), or(eq(users.role, "user"), anotherActiveAdmin)),
    )
    .returning({ id: users.id });
  if (deleted) return;
  // Nothing deleted: gone meanwhile (another delete won), or the partner's last active admin.
  if (!(await findUser(db, row.id))) throw new ApiError("user_not_found", "User not found");
  throw new ApiError("last_admin", "Cannot delete the partner's last active admin");
};

export const setUserActiveStatus = async (
  db: Db,
  caller: BearerUser,
  id: string,
  isActive: boolean,
): Promise<UserProfile> => {
  const row = await targetUser(db, caller, id, "Cannot update user from another partner");
  if (row.role !== "user") throw new ApiError("target_is_admin", "Can only update user role status, not admin");
  const [updated] = await db
    .update(users)
    .set({ isActive, updatedAt: new Date().toISOString() })
    .where(and(eq(users.id, row.id), eq(users.partnerId, caller.partnerId)))
    .returning();
  if (!updated) throw new ApiError("user_not_found", "User not found");
  return userProfile(updated);
};
