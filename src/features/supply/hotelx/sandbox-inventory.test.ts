import { describe, expect, it } from "vitest";
import { sandboxAccess } from "../../../../test/support/hotelx";
import { GENERATED_HOTELS, generatedHotelCode } from "../../../../sandbox/hotelx/src/inventory";
import { quote, search, SupplierCallError } from "./client";

// The sandbox's generated hotels (HX1000..HX1999), reached over the real hop to the auxiliary worker.
const access = sandboxAccess();
const STAY = { checkIn: "2027-03-10", checkOut: "2027-03-12", occupancies: [{ paxes: [{ age: 30 }, { age: 28 }] }] };
const DEADLINE = { deadlineMs: 5_000 };
const hundredCodes = Array.from({ length: 100 }, (_, i) => generatedHotelCode(i * 10));

describe("sandbox generated hotels", () => {
  it("answers a search by 100 generated codes with three rooms each, in EUR", async () => {
    const found = await search(access, { ...STAY, hotels: hundredCodes }, DEADLINE);
    expect(new Set(found.options.map((o) => o.hotelCode))).toEqual(new Set(hundredCodes));
    expect(found.options).toHaveLength(300);
    expect(found.options.every((o) => o.status === "OK" && o.price.currency === "EUR")).toBe(true);
  });

  it("prices each code the same every time, from its number", async () => {
    const net = async (code: string) => {
      const found = await search(access, { ...STAY, hotels: [code] }, DEADLINE);
      return found.options.find((o) => o.rooms[0]!.code === "DBL")!.price.net;
    };
    // Double room, 2 nights: (70 + (i * 37) % 130) EUR a night.
    expect(await net("HX1000")).toBe(140);
    expect(await net("HX1001")).toBe(214);
    expect(await net("HX1999")).toBe(2 * (70 + ((999 * 37) % 130)));
    expect(await net("HX1001")).toBe(214);
    const option = (await search(access, { ...STAY, hotels: ["HX1001"] }, DEADLINE)).options[0]!;
    expect(option.hotelName).toBe("Hotel Sandbox Madrid 1001");
    expect(await quote(access, option.id, DEADLINE)).toMatchObject({
      status: "OK",
      priceChanged: false,
      price: { net: option.price.net },
    });
  });

  it("knows nothing outside the range, and leaves the existing hotels and scenario codes as they were", async () => {
    const outside = [
      `HX${GENERATED_HOTELS.first - 1}`,
      `HX${GENERATED_HOTELS.first + GENERATED_HOTELS.count}`,
      "HX10000",
    ];
    expect((await search(access, { ...STAY, hotels: outside }, DEADLINE)).options).toEqual([]);
    const listed = await search(access, { ...STAY, hotels: ["HX001"] }, DEADLINE);
    expect(listed.options.find((o) => o.rooms[0]!.code === "DBL")).toMatchObject({
      hotelName: "Hotel Sandbox Barcelona",
      price: { net: 240 },
    });
    // HX500 lies inside HX100..HX1099, the range the generated hotels deliberately avoid: still a 500.
    const err = await search(access, { ...STAY, hotels: ["HX1000", "HX500"] }, DEADLINE).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SupplierCallError);
    expect((err as SupplierCallError).httpStatus).toBe(500);
  });
});
