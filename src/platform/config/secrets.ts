import { keyring, type Keyring } from "../crypto/keyring";
import { isLocal } from "../environment";

/** Secrets that sign tokens; each may have a `<NAME>_PREVIOUS` accepted for verification only. */
export type SigningSecret = "PAGE_TOKEN_SECRET" | "JWT_SECRET";
const SIGNING_SECRETS: readonly SigningSecret[] = ["PAGE_TOKEN_SECRET", "JWT_SECRET"];
/** Every secret the Worker reads. */
export const REQUIRED_SECRETS = [
  ...SIGNING_SECRETS,
  "OPERATOR_TOKEN",
  "WEBHOOK_SECRET_KEY",
  "PII_HASH_SECRET",
  "UPSTREAM_CREDENTIALS_KEY",
] as const;

/** RFC 6750's token68, as hono/bearer-auth reads a bearer token. */
const BEARER_TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

/** Shortest accepted secret: 32 bytes, the HMAC-SHA-256 output size. */
export const MIN_SECRET_BYTES = 32;

/**
 * The demo values of `.dev.vars.example` (a test keeps this list equal to that file). A deploy that
 * copied them would let anyone forge tokens or call operator routes.
 */
export const DEMO_SECRET_VALUES: ReadonlySet<string> = new Set([
  "local-demo-page-token-secret-change-me",
  "local-demo-jwt-secret-change-me",
  "demo-operator-token",
  "local-demo-webhook-secret-key-change-me",
  "local-demo-pii-hash-secret-change-me",
  "local-demo-upstream-credentials-key-change-me",
]);

const isHttpsOrigin = (value: string) => {
  try {
    return new URL(value).protocol === "https:";
  } catch {
    return false;
  }
};

/** Secrets may be absent at run time whatever the generated Env type says. */
type SecretEnv = { ENVIRONMENT?: string } & Partial<Record<string, unknown>>;

const secretValue = (env: SecretEnv, name: string): string | undefined => {
  const value = env[name];
  return typeof value === "string" && value !== "" ? value : undefined;
};

/** The keyring of one purpose: the current secret and, during a rotation, the previous one. */
export const signingKeys = (env: Env, name: SigningSecret): Keyring => {
  const vars = env as unknown as SecretEnv;
  return keyring(secretValue(vars, name), secretValue(vars, `${name}_PREVIOUS`));
};

export type SecretProblem = { name: string; problem: "missing" | "too_short" | "demo_value" | "invalid" };

/**
 * What is wrong with the secrets, by name only (never a value). Locally (ENVIRONMENT=local) the
 * demo values are accepted as they are; a missing secret is refused everywhere.
 */
export const secretProblems = (env: Env): SecretProblem[] => {
  const vars = env as unknown as SecretEnv;
  const local = isLocal(vars);
  const problems: SecretProblem[] = [];
  const judge = (name: string, required: boolean) => {
    const value = secretValue(vars, name);
    if (value === undefined) {
      if (required) problems.push({ name, problem: "missing" });
      return;
    }
    if (DEMO_SECRET_VALUES.has(value)) {
      if (!local) problems.push({ name, problem: "demo_value" });
      return;
    }
    if (new TextEncoder().encode(value).length < MIN_SECRET_BYTES) problems.push({ name, problem: "too_short" });
    // Presented as `Authorization: Bearer <token>` (hono/bearer-auth): outside RFC 6750's token68
    // alphabet the operator could never send it, so it fails closed here rather than refusing every call.
    else if (name === "OPERATOR_TOKEN" && !BEARER_TOKEN.test(value)) problems.push({ name, problem: "invalid" });
  };
  for (const name of REQUIRED_SECRETS) judge(name, true);
  for (const name of SIGNING_SECRETS) judge(`${name}_PREVIOUS`, false);
  // Not a secret, but every link the Worker hands out is built on it: a deploy without a valid
  // https origin would fail at the first link, so it fails closed here instead (local may omit it).
  const base = secretValue(vars, "PUBLIC_BASE_URL");
  if (base === undefined) {
    if (!local) problems.push({ name: "PUBLIC_BASE_URL", problem: "missing" });
  } else if (!isHttpsOrigin(base) && !(local && base.startsWith("http://"))) {
    problems.push({ name: "PUBLIC_BASE_URL", problem: "invalid" });
  }
  return problems;
};
