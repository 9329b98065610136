import { env } from "cloudflare:test";
import {
  execute,
  getNamedType,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLSchema,
  isListType,
  isNonNullType,
  isObjectType,
  parse,
} from "graphql";
import type { HotelxAccess } from "../../src/features/supply/hotelx/client";
import { buildHotelxSchema } from "../../sandbox/hotelx/src/schema";
import { hotelxApiSdl } from "../../src/features/hotelx-api/hotelx-api-sdl";

/** The sandbox Hotel-X supplier as the client reaches it: a real Worker-to-Worker hop to the auxiliary worker. */
export const sandboxAccess = (url = "https://hotelx-sandbox.test/graphql", client = "edgestay"): HotelxAccess => ({
  url,
  client,
  context: "SANDBOX",
  apiKey: env.HOTELX_SANDBOX_API_KEY,
  fetch: (request) => env.HOTELX_SANDBOX.fetch(request),
});

/** The upstream URL the demo connection 1002 (`con_demo_hotelx`) is configured with. */
export const demoUpstreamUrl = async () =>
  (await env.DB.prepare("SELECT settings ->> 'url' AS url FROM suppliers WHERE code = 'hotelx-1002'").first<string>(
    "url",
  ))!;

let hotelxSchema: ReturnType<typeof buildHotelxSchema> | undefined;

/** Every field of `type` and of the types below it, as a GraphQL selection set (deprecated fields too). */
const fullSelection = (type: GraphQLObjectType): string =>
  `{ ${Object.values(type.getFields())
    .map((field) => {
      const named = getNamedType(field.type);
      return isObjectType(named) ? `${field.name} ${fullSelection(named)}` : field.name;
    })
    .join(" ")} }`;

/** Keys of `value` that `type` has no field for, by path (GraphQL would drop them silently). */
const unknownKeys = (type: GraphQLOutputType, value: unknown, path: string): string[] => {
  if (value === null || value === undefined) return [];
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner))
    return Array.isArray(value) ? value.flatMap((item, i) => unknownKeys(inner.ofType, item, `${path}[${i}]`)) : [];
  if (!isObjectType(inner) || typeof value !== "object") return [];
  const fields = inner.getFields();
  return Object.entries(value).flatMap(([key, child]) =>
    fields[key]
      ? unknownKeys(fields[key].type, child, `${path}.${key}`)
      : [`${path}.${key} is not a field of ${inner.name}`],
  );
};

/**
 * What the Hotel-X SDL of Edgestay's API (hotelx-api/hotelx-api-sdl.ts: a supplier's schema of
 * sandbox/hotelx/src/schema.ts plus the public schema's fields, names as it has them) says of `value` as a result of its type `typeName`: the GraphQL errors of executing a
 * selection of every field over it (a null in a non-null field, an enum value or a scalar the
 * schema refuses, a wrong type), and every key the type has no field for. Empty: a valid result.
 */
export const hotelxResultProblems = async (typeName: string, value: unknown): Promise<string[]> => {
  hotelxSchema ??= buildHotelxSchema(hotelxApiSdl());
  const type = hotelxSchema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type of the Hotel-X SDL`);
  // A schema whose one root field answers `value` as that type: graphql-js serializes it field by field.
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: "Answer", fields: { value: { type: new GraphQLNonNull(type) } } }),
  });
  const result = await execute({
    schema,
    document: parse(`{ value ${fullSelection(type)} }`),
    rootValue: { value },
  });
  return [
    ...(result.errors ?? []).map((e) => `${e.path?.join(".") ?? ""}: ${e.message}`),
    ...unknownKeys(type, value, typeName),
  ];
};

/** Connection 1002 back to the embedded inventory in USD (what deleting its upstream did before issue 39). */
export const embeddedOnly1002 = () => [
  env.DB.prepare("DELETE FROM connection_suppliers WHERE connection_id = 'con_demo_hotelx'"),
  env.DB.prepare("UPDATE connections SET currency = 'USD' WHERE id = 'con_demo_hotelx'"),
];

/** Connection 1002 sells the sandbox supplier alone, or after the embedded inventory (the old `withEmbedded`). */
export const withEmbedded1002 = (on: boolean) =>
  env.DB.batch([
    env.DB.prepare("DELETE FROM connection_suppliers WHERE connection_id = 'con_demo_hotelx'"),
    on
      ? env.DB.prepare(
          "INSERT INTO connection_suppliers (connection_id, supplier_code, position) VALUES ('con_demo_hotelx', 'embedded', 0), ('con_demo_hotelx', 'hotelx-1002', 1)",
        )
      : env.DB.prepare(
          "INSERT INTO connection_suppliers (connection_id, supplier_code, position) VALUES ('con_demo_hotelx', 'hotelx-1002', 0)",
        ),
  ]);

/** Whether the sandbox supplier of 1002 books in two steps (its settings). */
export const twoStepBooking1002 = (on: boolean) =>
  env.DB.prepare(
    `UPDATE suppliers SET settings = json_set(settings, '$.twoStepBooking', json('${on ? "true" : "false"}')) WHERE code = 'hotelx-1002'`,
  ).run();
