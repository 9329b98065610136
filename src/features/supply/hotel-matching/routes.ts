import { z } from "@hono/zod-openapi";
import { operatorAuth, operatorSecurity } from "../../../platform/auth/operator";
import { apiRoute, json } from "../../../platform/http/api-route";
import { envelopeSchema, success } from "../../../platform/http/envelope";
import { featureRouter } from "../../../platform/http/router";
import { importHotelMap } from "../maps/hotel-map";
import { mapImportResult } from "../maps/routes";
import { supplierItemCode } from "../maps/upload";
import { getSupplier, supplierHotelList, supplierNotFound } from "../suppliers";
import { MAX_CANDIDATES } from "./matcher";
import { suggestHotelMatches } from "./suggest";

/** A supplier's whole list in one call: up to 20,000 hotels, 8 MiB (every other route keeps 1 MiB). */
export const SUGGEST_MAX_HOTELS = 20_000;
export const SUGGEST_MAX_BODY_BYTES = 8 * 1024 * 1024;

const supplierHotelSchema = z
  .object({
    supplierHotelCode: supplierItemCode.openapi({ description: "The supplier's own code of the hotel" }),
    name: z.string().min(1).max(300),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    address: z.string().max(300).optional().openapi({ description: "Street address; its street number counts" }),
    postalCode: z.string().max(20).optional(),
    city: z.string().max(100).optional(),
    countryCode: z
      .string()
      .regex(/^[A-Za-z]{2}$/, "expected an ISO 3166-1 alpha-2 code")
      .optional()
      .openapi({ description: "When given, only accommodations of this country are candidates" }),
  })
  .openapi("SupplierHotel");

export const suggestRequestSchema = z
  .object({
    hotels: z
      .array(supplierHotelSchema)
      .min(1)
      .max(SUGGEST_MAX_HOTELS)
      .superRefine((hotels, ctx) => {
        const seen = new Set<string>();
        hotels.forEach((hotel, i) => {
          if (seen.has(hotel.supplierHotelCode))
            ctx.addIssue({ code: "custom", path: [i, "supplierHotelCode"], message: "listed twice" });
          seen.add(hotel.supplierHotelCode);
        });
      })
      .optional()
      .openapi({ description: "The supplier's hotel list; or send fromSupplier instead" }),
    fromSupplier: z
      .literal(true)
      .optional()
      .openapi({
        description: `true: read the list from the supplier itself (a hotelx supplier: Hotel-X's hotels content query, paged, under the supplier's deadline, at most ${SUGGEST_MAX_HOTELS} hotels) instead of sending hotels`,
      }),
    apply: z.boolean().default(false).openapi({
      description:
        "true: the `auto` ones are written into the supplier's hotel map as its import does (row = the hotel's position in `hotels`, or in the supplier's list); the rest are left for review",
    }),
  })
  .refine((body) => (body.hotels === undefined) !== (body.fromSupplier === undefined), {
    message: "send hotels or fromSupplier: true, one of them",
    path: ["hotels"],
  })
  .openapi("HotelMapSuggestRequest", {
    example: {
      hotels: [
        {
          supplierHotelCode: "H-10442",
          name: "Stayford Inn & Stes Chicago Dwtn",
          latitude: 41.8794,
          longitude: -87.6312,
          address: "233 S Wacker Dr",
          postalCode: "60606",
          city: "Chicago",
          countryCode: "US",
        },
      ],
    },
  });

const candidateSchema = z
  .object({
    accommodationCode: z.string(),
    score: z.number().openapi({ description: "0 to 1: name, address and distance together" }),
    distanceMeters: z.number().int(),
    nameSimilarity: z.number().openapi({ description: "0 to 1, after normalising both names" }),
  })
  .openapi("HotelMatchCandidate");

const suggestionSchema = z
  .object({
    supplierHotelCode: z.string(),
    decision: z.enum(["auto", "review", "none"]).openapi({
      description:
        "auto: clearly this accommodation (safe to map); review: a candidate worth a look; none: nothing near is alike",
    }),
    accommodationCode: z.string().nullable().openapi({ description: "The best candidate, null when none is near" }),
    score: z.number().nullable(),
    distanceMeters: z.number().int().nullable(),
    nameSimilarity: z.number().nullable(),
    candidates: z
      .array(candidateSchema)
      .max(MAX_CANDIDATES)
      .openapi({ description: `The best ${MAX_CANDIDATES} within 500 m, best first` }),
  })
  .openapi("HotelMatchSuggestion");

const suggestResponseSchema = envelopeSchema(
  z.object({
    summary: z.object({
      hotels: z.number().int(),
      auto: z.number().int(),
      review: z.number().int(),
      none: z.number().int(),
    }),
    hotels: z.array(suggestionSchema).openapi({ description: "One per hotel sent, in the order sent" }),
    applied: mapImportResult.optional().openapi({
      description: "With apply: what writing the auto ones into the hotel map did (rows numbered as in `hotels`)",
    }),
  }),
).openapi("HotelMapSuggestResponse", {
  example: {
    message: "success",
    data: {
      summary: { hotels: 1, auto: 1, review: 0, none: 0 },
      hotels: [
        {
          supplierHotelCode: "H-10442",
          decision: "auto",
          accommodationCode: "US000412",
          score: 0.962,
          distanceMeters: 38,
          nameSimilarity: 1,
          candidates: [
            { accommodationCode: "US000412", score: 0.962, distanceMeters: 38, nameSimilarity: 1 },
            { accommodationCode: "US001187", score: 0.31, distanceMeters: 412, nameSimilarity: 0.5 },
          ],
        },
      ],
    },
  },
});

const suggest = apiRoute({
  operationId: "suggestHotelMap",
  method: "post",
  path: "/api/operator/suppliers/{code}/hotel-map/suggest",
  tags: ["Operator: suppliers"],
  summary: "Suggest which accommodation each of a supplier's hotels is",
  description:
    "Up to 20,000 hotels and 8 MiB per call, or fromSupplier: true to read a hotelx supplier's own list (400 for another kind); apply writes the auto ones into the hotel map. Candidates lie within 500 m; names are compared after normalisation, street number and postal code count. Measured precision and recall: docs/benchmarks.md.",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  maxBodyBytes: SUGGEST_MAX_BODY_BYTES,
  request: {
    params: z.object({
      code: z
        .string()
        .regex(/^[a-z0-9-]{2,40}$/, "expected 2 to 40 of a-z 0-9 -")
        .openapi({ example: "sandbox-eu", description: "The supplier's code in Edgestay" }),
    }),
    body: { required: true, ...json(suggestRequestSchema) },
  },
  errors: ["supplier_not_found", "conflict", "supplier_error", "supplier_timeout"],
  responses: { 200: { description: "A decision per hotel", ...json(suggestResponseSchema) } },
});

export const hotelMatchingRoutes = featureRouter().openapi(suggest, async (c) => {
  const { code } = c.req.valid("param");
  // A deactivated supplier is gone for the operator (its bookings still cancel): no map for it.
  if (!(await getSupplier(c.get("db"), code)).active) throw supplierNotFound(code);
  const body = c.req.valid("json");
  const hotels =
    body.hotels ??
    (await supplierHotelList(c.env, c.get("db"), c.env.UPSTREAM_CREDENTIALS_KEY, code, {
      maxHotels: SUGGEST_MAX_HOTELS,
    }));
  const apply = body.apply;
  const matches = await suggestHotelMatches(c.get("db"), hotels);
  // Only the sure ones are written, through the import (its one-to-one rules and rejections).
  const applied = apply
    ? await importHotelMap(c.get("db"), code, async () =>
        matches.flatMap((m, i) =>
          m.decision === "auto"
            ? [
                {
                  row: i + 1,
                  value: { supplierHotelCode: m.supplierHotelCode, accommodationCode: m.best!.accommodationCode },
                },
              ]
            : [],
        ),
      )
    : undefined;
  const count = (decision: string) => matches.filter((m) => m.decision === decision).length;
  return c.json(
    success({
      summary: { hotels: matches.length, auto: count("auto"), review: count("review"), none: count("none") },
      hotels: matches.map((m) => ({
        supplierHotelCode: m.supplierHotelCode,
        decision: m.decision,
        accommodationCode: m.best?.accommodationCode ?? null,
        score: m.best?.score ?? null,
        distanceMeters: m.best?.distanceMeters ?? null,
        nameSimilarity: m.best?.nameSimilarity ?? null,
        candidates: m.candidates,
      })),
      ...(applied ? { applied } : {}),
    }),
    200,
  );
});
