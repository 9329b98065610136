/**
 * Local demo accounts, made only by the local bootstrap and by tests (never by a deploy).
 * Passwords travel as MD5 hex strings, as the spec's login asks; the plain values are in README.
 * `passwordHash` is the stored PBKDF2 of that MD5 (password.ts's format, 100,000 iterations, a fixed
 * salt), worked out once: every workerd test file seeds the accounts, and hashing them anew cost
 * two PBKDF2 runs per file. Every login of the demo admins checks it.
 */
export const DEMO_ACCOUNTS = [
  {
    partner: { id: "demo", name: "Demo Travel" },
    admin: {
      id: "usr_demo_admin",
      email: "admin@demo.test",
      password: "demo-password",
      passwordMd5: "4b4d9529148d8d9440d7e20c78287f69",
      passwordHash: "pbkdf2-sha256$100000$ZGVtby1hZG1pbi1zYWx0IQ$GGzU_MQt5Sp2i6vTk3bCy2DCduQd9YUTV531e2H3Yo0",
    },
    apiKey: { id: "key_demo", key: "demo-partner-key" },
    collectorKey: "demo-collector-key",
    connection: { id: "con_demo_b2b", code: 1001 },
  },
  {
    partner: { id: "other", name: "Other Trips" },
    admin: {
      id: "usr_other_admin",
      email: "admin@other.test",
      password: "other-password",
      passwordMd5: "455d12ba5891711c2bb67f7ea3fcc315",
      passwordHash: "pbkdf2-sha256$100000$b3RoZXItYWRtaW4tc2FsdA$BcQrV4r5qo50C1Y05WnVvlaRsIBZplJgwB5ePVjkcUg",
    },
    apiKey: { id: "key_other", key: "other-partner-key" },
    collectorKey: "other-collector-key",
    connection: { id: "con_other_b2b", code: 2001 },
  },
] as const;

/** The demo partner and the other one, for tests that need both sides. */
export const [DEMO, OTHER] = DEMO_ACCOUNTS;

/**
 * A card the demo partner's traveller `user-42` saved, as the chat card step saves one (the
 * processor's token, brand, last four digits and expiry; never card data): the guarantee of the
 * README's PayAtProperty booking. Its ids are those of the OpenAPI examples.
 */
export const DEMO_SAVED_CARD = {
  partnerId: "demo",
  actorId: "user-42",
  paymentMethodId: "pm_3kT9x0aQw2LmNpR7",
  brand: "visa",
  last4: "4242",
  expMonth: 12,
  expYear: 2099,
} as const;

export const DEMO_OPERATOR_TOKEN = "demo-operator-token";

/** The sandbox Hotel-X supplier's local port (sandbox/hotelx); HOTELX_SANDBOX_PORT overrides it. */
export const SANDBOX_DEFAULT_PORT = 8791;
export const sandboxUrl = (port: number | string = SANDBOX_DEFAULT_PORT) => `http://127.0.0.1:${port}/`;
/** One of the sandbox's three suppliers (sandbox/hotelx/README.md, "Three suppliers"): the URL a `hotelx` supplier's settings hold. */
export const sandboxSupplierUrl = (code: string, port: number | string = SANDBOX_DEFAULT_PORT) =>
  `${sandboxUrl(port)}suppliers/${code}/graphql`;

/**
 * The demo partner's second in-use connection, served by the sandbox Hotel-X supplier; its API
 * key is the sandbox's documented demo value (sandbox/hotelx/wrangler.toml).
 */
export const DEMO_UPSTREAM_CONNECTION = {
  connection: { id: "con_demo_hotelx", code: 1002, partnerId: "demo" },
  upstream: { kind: "hotelx", client: "edgestay-demo", context: "SANDBOX", apiKey: "demo-hotelx-key" },
} as const;

/**
 * The demo partner's aggregation connection: the embedded inventory and the sandbox's three
 * suppliers (sandbox/hotelx/README.md, "Three suppliers"), selling in USD. Each supplier is seeded as
 * operator data under its sandbox code with the sandbox's one demo key (its `HOTELX_API_KEY`): the
 * key the operator gives Edgestay to call them, sealed at rest like any supplier credential.
 */
export const DEMO_SUPPLIERS_CONNECTION = {
  connection: { id: "con_demo_suppliers", code: 1003, partnerId: "demo" },
  currency: "USD",
  /** After `embedded`, in this order of preference (their currencies: sandbox/hotelx/src/suppliers.ts). */
  suppliers: ["iberbeds", "roomnexus", "albion"],
  hotelx: { client: "edgestay-demo", context: "SANDBOX", apiKey: "demo-hotelx-key" },
} as const;
