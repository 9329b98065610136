import { describe, expect, it } from "vitest";
import {
  maySell,
  PUBLIC_ACCESS,
  RATE_RULES,
  rateAccessFromText,
  rateAccessOf,
  rateAccessText,
  rateRulesOf,
  visibilityOf,
} from "./rate-rules";

const couple = [[30, 30]];

describe("who may be sold a restricted rate (issue 27)", () => {
  it("lists Hotel-X's 17 RateRulesType names", () => {
    expect(RATE_RULES).toHaveLength(17);
    expect(RATE_RULES).toEqual(
      expect.arrayContaining(["MOBILE", "WARRANTY", "ESSENTIAL_WORKER", "NEGOTIATED", "CUSTOM"]),
    );
  });

  it("public access sells public rates, non-refundable, warranty and negotiated ones; nothing restricted", () => {
    const access = rateAccessOf({ rooms: couple });
    expect(access).toEqual(PUBLIC_ACCESS);
    for (const rules of [[], ["NON_REFUNDABLE"], ["WARRANTY"], ["NEGOTIATED"]] as const)
      expect(maySell({ rateRules: rules, visibility: "PUBLIC" }, access)).toBe(true);
    for (const rule of RATE_RULES.filter((r) => !["NORMAL", "NON_REFUNDABLE", "WARRANTY", "NEGOTIATED"].includes(r)))
      expect(maySell({ rateRules: [rule], visibility: "PUBLIC" }, access)).toBe(false);
    expect(maySell({ rateRules: [], visibility: "PACKAGE" }, access)).toBe(false);
    expect(maySell({ rateRules: [], visibility: "OPAQUE_PROPERTY" }, access)).toBe(false);
  });

  it("each visibility needs its own support; the channel and the vouched rules are independent of it", () => {
    const opaque = rateAccessOf({ supportedVisibilityTypes: ["OPAQUE_PROPERTY"], rooms: couple });
    expect(opaque.visibilities).toEqual(["PUBLIC", "OPAQUE_PROPERTY"]);
    expect(maySell({ rateRules: [], visibility: "OPAQUE_PROPERTY" }, opaque)).toBe(true);
    expect(maySell({ rateRules: ["PACKAGE"], visibility: "PACKAGE" }, opaque)).toBe(false);
    const app = rateAccessOf({ salesChannel: "APP", rooms: couple });
    expect(maySell({ rateRules: ["MOBILE", "NON_REFUNDABLE"], visibility: "PUBLIC" }, app)).toBe(true);
    // Every rule of a rate must be allowed.
    expect(maySell({ rateRules: ["MOBILE", "LARGE_FAMILY"], visibility: "PUBLIC" }, app)).toBe(false);
    const vouched = rateAccessOf({ includes: ["large_family", "custom", "OLDER55"], rooms: [[54, 50], [20]] });
    expect(vouched.rules).toEqual(["LARGE_FAMILY", "CUSTOM"]);
    expect(rateAccessOf({ includes: ["OLDER55", "OLDER60"], rooms: [[20], [58]] }).rules).toEqual(["OLDER55"]);
  });

  it("reads an upstream's rule names: known ones once and in order, NORMAL dropped, an unknown one as CUSTOM", () => {
    expect(rateRulesOf(null)).toEqual([]);
    expect(rateRulesOf(["NORMAL"])).toEqual([]);
    expect(rateRulesOf(["MOBILE", "NON_REFUNDABLE", "MOBILE"])).toEqual(["NON_REFUNDABLE", "MOBILE"]);
    expect(rateRulesOf(["RESIDENT_OF_MARS"])).toEqual(["CUSTOM"]);
    expect(visibilityOf(["NON_REFUNDABLE", "PACKAGE"])).toBe("PACKAGE");
    expect(visibilityOf(["MOBILE"])).toBe("PUBLIC");
  });

  it("signs public-only access as nothing and reads back what it wrote; anything else is refused", () => {
    expect(rateAccessText(PUBLIC_ACCESS)).toBeUndefined();
    expect(rateAccessFromText(undefined)).toEqual(PUBLIC_ACCESS);
    const access = rateAccessOf({
      supportedVisibilityTypes: ["PUBLIC", "PACKAGE"],
      salesChannel: "APP",
      includes: ["OLDER65"],
      rooms: [[70]],
    });
    expect(rateAccessText(access)).toBe("PUBLIC.PACKAGE|PACKAGE.OLDER65.MOBILE");
    expect(rateAccessFromText(rateAccessText(access))).toEqual(access);
    for (const bad of ["", "PACKAGE|", "PUBLIC|CHEAP", "PUBLIC.SECRET|", "PUBLIC|MOBILE|x"])
      expect(rateAccessFromText(bad)).toBeNull();
  });
});
