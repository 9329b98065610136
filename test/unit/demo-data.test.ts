import { describe, expect, it } from "vitest";
import { accommodationContentSchema } from "../../src/features/content/schemas";
import { haversineKm } from "../../src/features/supply/accommodations";
import { CHAINS, generateAccommodations } from "../support/accommodations";
import { derivedAndPinned } from "../support/demo-catalogue";

describe("demo accommodation generator", () => {
  const sample = [...generateAccommodations(500)];

  it("is deterministic: same seed, same data; another seed, other data", () => {
    expect([...generateAccommodations(500)]).toEqual(sample);
    expect([...generateAccommodations(20, 7)].map((a) => a.name)).not.toEqual(sample.slice(0, 20).map((a) => a.name));
  });

  it("fills every field of section 4.1 plausibly", () => {
    for (const a of sample) {
      const doc = accommodationContentSchema.strict().parse(a.content);
      expect(doc.localizedDescription[0]!.content.map((c) => c.type).sort()).toEqual([
        "ADDITIONAL",
        "GENERAL",
        "LOCATION",
        "RESTAURANT",
        "ROOM",
      ]);
      expect(doc.localizedDescription[0]!.content.every((c) => /<\/?[a-z]+>/.test(c.content))).toBe(true);
      expect(() => new Intl.DateTimeFormat("en-US", { timeZone: doc.timezone })).not.toThrow();
      expect(doc.timezone).toMatch(/^(America|Pacific)\//);
      const [lng, lat] = doc.location;
      expect(lat).toBeGreaterThan(18);
      expect(lat).toBeLessThan(72);
      expect(lng).toBeGreaterThan(-180);
      expect(lng).toBeLessThan(-64);
      expect(doc.address.postalCode).toMatch(/^\d{5}$/);
      expect(doc.address.state).toMatch(/^[A-Z]{2}$/);
      expect(doc.images.length).toBeGreaterThanOrEqual(3);
      expect(doc.checkInPolicy.checkInFrom).toMatch(/^\d{2}:\d{2}$/);
      expect(doc.starRating).toBeGreaterThanOrEqual(1);
      expect(doc.starRating).toBeLessThanOrEqual(5);
      expect(a.name).toBe(doc.localizedName[0]!.content);
    }
  });

  it("spreads over many real cities and several types, densest in the big ones", () => {
    const cities = new Map<string, number>();
    for (const a of sample) cities.set(`${a.city}, ${a.state}`, (cities.get(`${a.city}, ${a.state}`) ?? 0) + 1);
    expect(cities.size).toBeGreaterThan(100);
    expect(new Set(sample.map((a) => a.type)).size).toBeGreaterThanOrEqual(5);
    const busiest = [...cities.entries()].sort((x, y) => y[1] - x[1])[0]!;
    expect(busiest[1]).toBeGreaterThan(5);
  });

  it("has chains: brands with several hotels in a city, some a few hundred metres apart, told apart by name", () => {
    const brandOf = (name: string) => CHAINS.find((c) => name.startsWith(`${c.brand} `))?.brand;
    // npm start's 2,000: the hotels the labelled set of hotel mapping is built from.
    const demo = [...generateAccommodations(2_000)];
    const chainHotels = demo.filter((a) => brandOf(a.name));
    expect(chainHotels.length).toBeGreaterThan(demo.length * 0.08);
    expect(chainHotels.length).toBeLessThan(demo.length * 0.25);
    const perBrandAndCity = new Map<string, number>();
    for (const a of chainHotels) {
      const key = `${brandOf(a.name)}|${a.city}|${a.state}`;
      perBrandAndCity.set(key, (perBrandAndCity.get(key) ?? 0) + 1);
    }
    expect([...perBrandAndCity.values()].filter((n) => n >= 3).length).toBeGreaterThan(10);
    const close = chainHotels.filter((a) =>
      chainHotels.some(
        (b) =>
          b !== a &&
          brandOf(b.name) === brandOf(a.name) &&
          haversineKm(a.latitude, a.longitude, b.latitude, b.longitude) < 0.6,
      ),
    );
    expect(close.length).toBeGreaterThan(50);
    // One name per hotel of a brand in a city: the qualifier tells them apart.
    expect(new Set(chainHotels.map((a) => `${a.name}|${a.state}`)).size).toBe(chainHotels.length);
  });
});

describe("the derived catalogue under Node", () => {
  it("is the Worker's (the sandbox fixtures and npm start's seeding derive rooms here)", () => {
    for (const { derived, pinned } of derivedAndPinned()) expect(derived).toEqual(pinned);
  });
});
