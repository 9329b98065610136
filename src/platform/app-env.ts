import type { Db, SessionDatabase } from "./db/client";

/** The partner behind an authenticated API key. */
export type Caller = { partnerId: string; apiKeyId: string };

/** The partner user behind a valid bearer token, re-read from D1 on every request. */
export type BearerUser = { userId: string; partnerId: string; email: string; role: "admin" | "user" };

export type AppEnv = {
  Bindings: Env;
  Variables: { requestId: string; db: Db; d1: SessionDatabase; caller: Caller; user: BearerUser };
};
