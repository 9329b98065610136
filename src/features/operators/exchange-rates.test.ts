import { describe, expect, it } from "vitest";
import { call } from "../../../test/support/api";
import { demoAdminToken, OPERATOR } from "../../../test/support/sessions";

const PATH = "/api/operator/exchange-rates";

describe("/api/operator/exchange-rates", () => {
  it("reads nothing before a PUT, then the set in force; a PUT replaces the whole set", async () => {
    const empty = await call("GET", PATH, undefined, OPERATOR);
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ data: { base: null, rates: {}, updatedAt: null }, message: "success" });

    const put = await call("PUT", PATH, { base: "USD", rates: { EUR: 0.92, GBP: 0.79, USD: 1 } }, OPERATOR);
    expect(put.status).toBe(200);
    expect(put.json.data).toMatchObject({
      base: "USD",
      rates: { EUR: 0.92, GBP: 0.79 },
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect((await call("GET", PATH, undefined, OPERATOR)).json.data).toEqual(put.json.data);

    const replaced = await call("PUT", PATH, { base: "EUR", rates: { USD: 1.087 } }, OPERATOR);
    expect(replaced.json.data).toMatchObject({ base: "EUR", rates: { USD: 1.087 } });
    expect((await call("GET", PATH, undefined, OPERATOR)).json.data.rates).toEqual({ USD: 1.087 });
  });

  it("stores the largest set whole (300 rates and the base, more than one insert can bind)", async () => {
    const letter = (n: number) => String.fromCharCode(65 + n);
    const rates = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`X${letter(Math.floor(i / 26))}${letter(i % 26)}`, i + 1]),
    );
    const put = await call("PUT", PATH, { base: "USD", rates }, OPERATOR);
    expect(put.status).toBe(200);
    expect((await call("GET", PATH, undefined, OPERATOR)).json.data).toMatchObject({ base: "USD", rates });
  });

  it.each([
    ["a lower-case code", { base: "usd", rates: {} }],
    ["a code of 4 letters", { base: "USD", rates: { EURO: 0.9 } }],
    ["a lower-case rate code", { base: "USD", rates: { eur: 0.9 } }],
    ["a zero rate", { base: "USD", rates: { EUR: 0 } }],
    ["a negative rate", { base: "USD", rates: { EUR: -1 } }],
    ["a rate as a string", { base: "USD", rates: { EUR: "0.92" } }],
    ["no base", { rates: { EUR: 0.92 } }],
    ["no rates", { base: "USD" }],
    ["rates as a list", { base: "USD", rates: [0.92] }],
  ])("%s: 400, nothing changed", async (_name, body) => {
    await call("PUT", PATH, { base: "USD", rates: { EUR: 0.92 } }, OPERATOR);
    const res = await call("PUT", PATH, body, OPERATOR);
    expect(res.status).toBe(400);
    expect((await call("GET", PATH, undefined, OPERATOR)).json.data.rates).toEqual({ EUR: 0.92 });
  });

  describe("bounds: every rate from 1e-6 to 1e6, finite (issue 25)", () => {
    const BOUNDS = "must be a finite number from 0.000001 to 1000000 (1e-6 to 1e6)";
    const refused = async (res: Awaited<ReturnType<typeof call>>) => {
      expect(res.status).toBe(400);
      expect(res.json.message).toBe(`rates.EUR: ${BOUNDS}`);
      expect((await call("GET", PATH, undefined, OPERATOR)).json.data.rates).toEqual({ GBP: 0.79 });
    };

    it.each([
      ["1e308", 1e308],
      ["1e-300", 1e-300],
      ["zero", 0],
      ["a negative rate", -0.92],
      ["just below the bound", 9.99e-7],
      ["just above the bound", 1_000_001],
      ["the string Infinity", "Infinity"],
      ["the string NaN", "NaN"],
      ["a number as a string", "0.92"],
      ["null", null],
      ["true", true],
      ["an object", { value: 0.92 }],
    ])("%s: 400 naming the field and the bounds, nothing changed", async (_name, rate) => {
      await call("PUT", PATH, { base: "USD", rates: { GBP: 0.79 } }, OPERATOR);
      await refused(await call("PUT", PATH, { base: "USD", rates: { GBP: 0.79, EUR: rate } }, OPERATOR));
    });

    it("a number too large for a double in the JSON text (Infinity once parsed) is refused the same way", async () => {
      await call("PUT", PATH, { base: "USD", rates: { GBP: 0.79 } }, OPERATOR);
      for (const raw of ['{"base":"USD","rates":{"EUR":1e400}}', '{"base":"USD","rates":{"EUR":-1e400}}'])
        await refused(
          await call("PUT", PATH, undefined, {
            ...OPERATOR,
            raw,
            headers: { ...OPERATOR.headers, "content-type": "application/json" },
          }),
        );
    });

    it("the bounds themselves are rates", async () => {
      const put = await call("PUT", PATH, { base: "USD", rates: { EUR: 1e-6, JPY: 1e6 } }, OPERATOR);
      expect(put.status).toBe(200);
      expect(put.json.data.rates).toEqual({ EUR: 1e-6, JPY: 1e6 });
    });
  });

  it("the base's own rate must be 1; malformed JSON is 400", async () => {
    const base = await call("PUT", PATH, { base: "USD", rates: { USD: 2 } }, OPERATOR);
    expect(base.status).toBe(400);
    expect(base.json.message).toBe("The rate of the base currency itself must be 1");
    const malformed = await call("PUT", PATH, undefined, {
      ...OPERATOR,
      raw: '{"base":',
      headers: { ...OPERATOR.headers, "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
  });

  it("needs the operator token: none 401, a wrong one, a partner's bearer token or API key 403/401", async () => {
    const token = await demoAdminToken();
    for (const method of ["GET", "PUT"]) {
      const body = method === "PUT" ? { base: "USD", rates: {} } : undefined;
      expect((await call(method, PATH, body, { apiKey: null })).status).toBe(401);
      expect((await call(method, PATH, body, { apiKey: null, headers: { authorization: "Bearer nope" } })).status).toBe(
        403,
      );
      expect(
        (await call(method, PATH, body, { apiKey: null, headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(403);
      expect((await call(method, PATH, body)).status).toBe(401);
    }
  });

  it("is described in /openapi.json", async () => {
    const doc = await call("GET", "/openapi.json");
    expect(Object.keys(doc.json.paths[PATH])).toEqual(expect.arrayContaining(["get", "put"]));
  });
});
