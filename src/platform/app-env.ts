import type { Db } from "./db/client";

/** The partner behind an authenticated API key. */
export type Caller = { partnerId: string; apiKeyId: string };

export type AppEnv = {
  Bindings: Env;
  Variables: { requestId: string; db: Db; caller: Caller };
};
