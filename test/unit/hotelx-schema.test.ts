import { readFileSync } from "node:fs";
import { buildSchema, type GraphQLObjectType, graphqlSync, printSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { buildHotelxSchema, HOTELX_CONTENT_SDL, HOTELX_SDL } from "../../sandbox/hotelx/src/schema";
import { HOTELX_API_ADDITIONS, hotelxApiSdl, mergeSdl } from "../../src/features/hotelx-api/hotelx-api-sdl";
import { HOTELX_SDL_ASSET } from "../../src/features/hotelx-api/hotelx-sdl";

describe("the Hotel-X executable schema (sandbox/hotelx/src/schema.ts)", () => {
  it("is the schema graphql-js's buildSchema makes of the SDL, which also validates the SDL", () => {
    expect(printSchema(buildHotelxSchema(HOTELX_SDL))).toBe(printSchema(buildSchema(HOTELX_SDL)));
  });

  it("takes the sandbox's content extension (`extend type HotelXQuery { hotels }`) as buildSchema does; the API's schema has no `hotels`", () => {
    const sdl = HOTELX_SDL + HOTELX_CONTENT_SDL;
    const extended = buildHotelxSchema(sdl);
    expect(printSchema(extended)).toBe(printSchema(buildSchema(sdl)));
    const fields = (schema: ReturnType<typeof buildHotelxSchema>) =>
      Object.keys((schema.getType("HotelXQuery") as GraphQLObjectType).getFields());
    expect(fields(extended)).toEqual(["search", "quote", "booking", "hotels"]);
    expect(fields(buildHotelxSchema(HOTELX_SDL))).toEqual(["search", "quote", "booking"]);
  });

  it("is served to the API Worker from its static assets with the public schema's additions (npm run assets writes it)", () => {
    expect(readFileSync(new URL(`../../snippet${HOTELX_SDL_ASSET}`, import.meta.url), "utf8")).toBe(hotelxApiSdl());
  });

  it("the API's SDL is valid, and keeps every type, field and argument of the supplier's (the sandbox's) as it is", () => {
    const api = buildHotelxSchema(hotelxApiSdl());
    expect(printSchema(api)).toBe(printSchema(buildSchema(hotelxApiSdl())));
    const supplier = buildHotelxSchema(HOTELX_SDL);
    for (const type of Object.values(supplier.getTypeMap()).filter((t) => !t.name.startsWith("__"))) {
      const mine = api.getType(type.name);
      expect(mine?.toString(), type.name).toBe(type.toString());
      if (!("getFields" in type) || !mine || !("getFields" in mine)) continue;
      const fields = mine.getFields();
      for (const field of Object.values(type.getFields())) {
        expect(fields[field.name]?.type.toString(), `${type.name}.${field.name}`).toBe(field.type.toString());
        for (const arg of "args" in field ? field.args : [])
          expect(
            (fields[field.name] as typeof field).args
              .find((a: { name: string }) => a.name === arg.name)
              ?.type.toString(),
            `${type.name}.${field.name}(${arg.name})`,
          ).toBe(arg.type.toString());
      }
    }
    const search = (api.getType("HotelXQuery") as GraphQLObjectType).getFields().search!;
    expect(search.args.map((a) => a.name)).toEqual(["criteria", "settings", "filterSearch", "filter"]);
  });

  it("an addition extends a type that is there, and defines a new one only once", () => {
    expect(() => mergeSdl(HOTELX_SDL, "extend type Nowhere { a: Int }")).toThrow(/extend Nowhere, which is not there/);
    expect(() => mergeSdl(HOTELX_SDL, "type Price { a: Int }")).toThrow(/define Price again/);
    expect(HOTELX_API_ADDITIONS).toMatch(/extend type HotelXQuery/);
  });

  it("checks its scalars on input and output; deprecated fields keep their reason", () => {
    const schema = buildHotelxSchema(HOTELX_SDL);
    const query = (criteria: string) =>
      graphqlSync({ schema, source: `{ hotelX { booking(criteria: ${criteria}) { errors { code } } } }` });
    expect(query('{dates: {dateType: ARRIVAL, start: "2027-02-30", end: "2027-03-01"}}').errors?.[0]?.message).toBe(
      'Date must be an ISO 8601 date (YYYY-MM-DD), got "2027-02-30"',
    );
    expect(query('{references: {hotelCode: "H", currency: "eur", references: []}}').errors?.[0]?.message).toMatch(
      /Currency must be an ISO 4217 currency code/,
    );
    expect(query('{dates: {dateType: ARRIVAL, start: "2027-03-01", end: "2027-03-02"}}').errors).toBeUndefined();
    const checkIn = schema.getType("BookingHotel");
    expect(checkIn && "getFields" in checkIn && checkIn.getFields().checkIn?.deprecationReason).toBe(
      "deprecated from 2018-02-28. Incorrect date format.",
    );
  });
});
