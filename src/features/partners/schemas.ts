import { z } from "@hono/zod-openapi";
import { envelopeSchema } from "../../platform/http/envelope";
import { emailSchema, timestamp } from "../../platform/http/fields";

export const USER_ROLES = ["admin", "user"] as const;

/** The client sends its password as an MD5 hex string (spec 2.5, 4.7). */
export const md5Schema = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/, "must be an MD5 hex string (32 hexadecimal characters)")
  .openapi({ example: "4b4d9529148d8d9440d7e20c78287f69" });

// ---- login (4.7)

export const loginRequestSchema = z
  .object({
    accountType: z.enum(["email", "phone"]).openapi({
      description:
        "email. phone is in the contract's enum but refused: 400 unsupported_account_type (accountType phone is not supported; use email)",
      example: "email",
    }),
    accountValue: z.string().min(1).max(254).openapi({ example: "admin@demo.test" }),
    password: z
      .string()
      .min(1)
      .max(128)
      .openapi({ description: "MD5 hex string of the password", example: "4b4d9529148d8d9440d7e20c78287f69" }),
  })
  .openapi("LoginRequest", {
    example: { accountType: "email", accountValue: "admin@demo.test", password: "4b4d9529148d8d9440d7e20c78287f69" },
  });

export const loginResponseSchema = envelopeSchema(
  z
    .object({
      token: z.object({
        accessToken: z.string(),
        tokenType: z.literal("Bearer"),
        expiresIn: z.number().openapi({ description: "Seconds until the token expires", example: 3600 }),
      }),
    })
    .openapi({
      example: {
        token: {
          accessToken: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfZGVtb19hZG1pbiJ9.c2lnbmF0dXJl",
          tokenType: "Bearer",
          expiresIn: 3600,
        },
      },
    }),
).openapi("LoginResponse");

// ---- users (4.9)

export const userProfileSchema = z
  .object({
    id: z.string(),
    partnerId: z.string(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    phoneNumber: z.string().nullable(),
    role: z.enum(USER_ROLES),
    isActive: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .openapi("UserProfile", {
    example: {
      id: "usr_8f2k3m9q",
      partnerId: "demo",
      email: "jane@demo.test",
      firstName: "Jane",
      lastName: "Doe",
      phoneNumber: null,
      role: "user",
      isActive: true,
      createdAt: "2026-11-02T09:15:00.000Z",
      updatedAt: "2026-11-02T09:15:00.000Z",
    },
  });

const optionalName = z.string().trim().min(1).max(100).optional();

export const createUserSchema = z
  .object({
    email: emailSchema,
    password: md5Schema,
    firstName: optionalName,
    lastName: optionalName,
    phoneNumber: z
      .string()
      .trim()
      .regex(/^\+?[0-9 ()-]{4,32}$/, "must be a phone number")
      .optional(),
    role: z.enum(USER_ROLES),
  })
  .openapi("CreateUserRequest", {
    example: {
      email: "jane@demo.test",
      password: "4b4d9529148d8d9440d7e20c78287f69",
      firstName: "Jane",
      lastName: "Doe",
      role: "user",
    },
  });

export const activeStatusSchema = z
  .object({ isActive: z.boolean() })
  .openapi("ActiveStatusRequest", { example: { isActive: false } });

const idParam = (example: string) =>
  z.object({
    id: z
      .string()
      .min(1)
      .max(64)
      .openapi({ param: { name: "id", in: "path" }, example }),
  });
/** A user's id, from GET /api/users. */
export const userIdParamSchema = idParam("usr_8f2k3m9q");
/** An API key's id, from GET /api/partner/api-keys. */
export const apiKeyIdParamSchema = idParam("key_5hx2p7");

export const userResponseSchema = envelopeSchema(userProfileSchema).openapi("UserResponse");
export const userListResponseSchema = envelopeSchema(z.array(userProfileSchema)).openapi("UserListResponse");

// ---- API keys (4.8)

export const apiKeyRecordSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    apiKey: z
      .string()
      .openapi({ description: "Masked: the key's first characters and an ellipsis", example: "esk_a1B2c3D4…" }),
    createdAt: timestamp,
    revokedAt: timestamp.nullable(),
  })
  .openapi("ApiKeyRecord", {
    example: {
      id: "key_5hx2p7",
      name: "booking server",
      apiKey: "esk_a1B2c3D4…",
      createdAt: "2026-11-02T09:15:00.000Z",
      revokedAt: null,
    },
  });

export const createdApiKeySchema = apiKeyRecordSchema
  .extend({ apiKey: z.string().openapi({ description: "The full key, shown only in this response" }) })
  .openapi("CreatedApiKey", {
    example: {
      id: "key_5hx2p7",
      name: "booking server",
      apiKey: "esk_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6",
      createdAt: "2026-11-02T09:15:00.000Z",
      revokedAt: null,
    },
  });

export const createApiKeySchema = z
  .object({ name: z.string().trim().min(1).max(100).optional().openapi({ example: "booking server" }) })
  .openapi("CreateApiKeyRequest", { example: { name: "booking server" } });

export const apiKeyListResponseSchema = envelopeSchema(z.array(apiKeyRecordSchema)).openapi("ApiKeyListResponse");
export const createdApiKeyResponseSchema = envelopeSchema(createdApiKeySchema).openapi("CreatedApiKeyResponse");
export const apiKeyResponseSchema = envelopeSchema(apiKeyRecordSchema).openapi("ApiKeyResponse");

export const emptyResponseSchema = envelopeSchema(z.object({}).strict().openapi({ example: {} })).openapi(
  "EmptyResponse",
);
