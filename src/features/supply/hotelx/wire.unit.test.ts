import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { optionSchema, readSearchOptions } from "./wire";

/**
 * readSearchOptions is the search's hand-written reading of `optionSchema` (zod cannot generate
 * code in a Worker, and checks hundreds of options slowly without it): over random options, valid
 * ones and ones with any field wrong or missing, both accept and refuse the same, and read the same.
 */
const wrong = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant({}),
  fc.constant([]),
);
/** Mostly valid, now and then any other value; a key may also be left out. */
const field = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 40, arbitrary: valid }, { weight: 1, arbitrary: wrong });
const record = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) =>
  fc.oneof(
    { weight: 30, arbitrary: fc.record(fields) },
    { weight: 1, arbitrary: fc.record(fields, { requiredKeys: [] }) },
  );
const nullish = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, fc.constant(null), fc.constant(undefined));
const amount = record({
  currency: field(fc.constantFrom("EUR", "USD")),
  net: field(fc.double({ min: -1e6, max: 1e6 })),
});
const int = fc.oneof(
  { weight: 20, arbitrary: fc.integer({ min: -5, max: 500 }) },
  fc.constant(2 ** 60),
  fc.constant(1.5),
);
const option = record({
  id: field(fc.constantFrom("", "opt-1", "eyJoIjoi")),
  accessCode: field(fc.string()),
  hotelCode: field(fc.string()),
  boardCode: field(fc.string()),
  paymentType: field(fc.constantFrom("MERCHANT", "DIRECT")),
  status: field(fc.constantFrom("OK", "RQ", "KO")),
  rooms: field(
    fc.array(
      record({
        occupancyRefId: field(int),
        code: field(fc.string()),
        description: field(nullish(fc.string())),
        refundable: field(nullish(fc.boolean())),
      }),
      { maxLength: 3 },
    ),
  ),
  price: field(amount),
  surcharges: field(
    nullish(
      fc.array(
        record({
          code: field(nullish(fc.string())),
          chargeType: field(fc.constantFrom("INCLUDE", "EXCLUDE", "OTHER")),
          mandatory: field(fc.boolean()),
          description: field(nullish(fc.string())),
          price: field(amount),
        }),
        { maxLength: 3 },
      ),
    ),
  ),
  rateRules: field(nullish(fc.array(field(fc.constantFrom("PACKAGE", "NON_REFUNDABLE")), { maxLength: 3 }))),
  cancelPolicy: field(
    nullish(
      record({
        refundable: field(fc.boolean()),
        cancelPenalties: field(
          nullish(
            fc.array(
              record({
                deadline: field(nullish(fc.string())),
                hoursBefore: field(int),
                penaltyType: field(fc.constantFrom("PERCENT", "NIGHTS", "IMPORT")),
                currency: field(fc.string()),
                value: field(fc.double({ noNaN: false })),
              }),
              { maxLength: 3 },
            ),
          ),
        ),
      }),
    ),
  ),
  remarks: field(nullish(fc.string())),
});

describe("readSearchOptions reads a search answer's options as optionSchema does", () => {
  it("accepts, refuses and reads the same as the schema, option by option and as a list", () => {
    let accepted = 0;
    fc.assert(
      fc.property(option, (value) => {
        const zod = optionSchema.safeParse(value);
        const read = readSearchOptions([value]);
        expect(read !== null).toBe(zod.success);
        if (zod.success) {
          accepted++;
          expect(read![0]).toEqual(zod.data);
        }
      }),
      { numRuns: 1000 },
    );
    // Both sides were exercised: valid options as well as refused ones.
    expect(accepted).toBeGreaterThan(100);
    fc.assert(
      fc.property(fc.array(option, { maxLength: 4 }), (list) => {
        const zod = optionSchema.array().safeParse(list);
        expect(readSearchOptions(list)).toEqual(zod.success ? zod.data : null);
      }),
      { numRuns: 300 },
    );
  });

  it("reads no options (null, absent) as none, and anything but a list as no answer", () => {
    expect(readSearchOptions(null)).toEqual([]);
    expect(readSearchOptions(undefined)).toEqual([]);
    expect(readSearchOptions({})).toBeNull();
    expect(readSearchOptions("options")).toBeNull();
  });
});
