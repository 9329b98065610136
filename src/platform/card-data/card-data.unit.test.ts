import { describe, expect, it } from "vitest";
import { findCardData } from "./card-data";

describe("findCardData: what counts as raw card data", () => {
  it.each([
    [{ text: "4242424242424242" }, "text"],
    [{ text: "card 4242 4242 4242 4242 please" }, "text"],
    [{ text: "5555-5555-5555-4444" }, "text"],
    [{ text: "my card is 4111111111111111." }, "text"],
    [{ text: "card:4111-1111-1111-1111" }, "text"],
    [{ paymentMethodId: "pm_4111111111111111" }, "paymentMethodId"],
    [{ a: [{ b: 378282246310005 }] }, "a[0].b"],
    [{ CardNumber: "x" }, "CardNumber"],
    [{ payload: { cvc: "1" } }, "payload.cvc"],
    [{ pan: null }, "pan"],
  ])("%j is refused at %s", (value, field) => {
    expect(findCardData(value)).toBe(field);
  });

  it.each([
    [{ text: "Hotel in New York from 2026-12-21 to 2026-12-23, budget $1,000,000" }],
    [{ recordedAt: 1763750000001 }], // 13 digits that fail the Luhn check
    [{ ref: "1234567890123" }],
    [{ last4: "4242", expMonth: 12, expYear: 2030 }],
    [{ optionId: "WzEsImRlbW8iLCJVUzAwMTA0MSJd.KEkowjhI-hPF0yJncDfMea1O36G7HFQa" }],
    // A Luhn-valid digit run inside an identifier: about 1 in 400 random hex payment-method ids has one.
    [{ paymentMethodId: "pm_test4111111111111111abc" }],
  ])("%j is accepted", (value) => {
    expect(findCardData(value)).toBeNull();
  });
});

describe("findCardData: card numbers however they are written (issue 12)", () => {
  it.each([
    [{ text: "4242.4242.4242.4242" }, "text"],
    [{ text: "card 4242 - 4242 - 4242 - 4242" }, "text"],
    [{ text: "５５５５５５５５５５５５４４４４" }, "text"], // full-width digits
    [{ text: "４２４２　４２４２　４２４２　４２４２" }, "text"], // full-width digits and spaces
    [{ text: "4242．4242－4242－4242" }, "text"], // full-width dot and dash
    [{ text: "3782 822463 10005" }, "text"], // American Express grouping
    [{ text: "4242\u00a04242\u00a04242\u00a04242" }, "text"], // no-break spaces
    [{ payload: { note: ["ok", { deep: "4111 1111 1111 1111" }] } }, "payload.note[1].deep"],
    [{ payload: { "4242 4242 4242 4242": "my card" } }, "payload.<key>"],
    [{ payload: { "５５５５-５５５５-５５５５-４４４４": true } }, "payload.<key>"],
  ])("%j is refused at %s", (value, field) => {
    expect(findCardData(value)).toBe(field);
  });

  it.each([
    [{ text: "Stay 2026.12.21 to 2026.12.23, 2 adults, budget 1.000.000" }],
    [{ text: "Call +1 212-555-0147 or 212.555.0148" }],
    [{ payload: { "2026-12-21": "date key" } }],
    // Luhn-valid digits grouped as a reference, not a card (issue 37: the guard now sits on book's
    // partnerReference, where one such reference in ten was refused).
    [{ partnerReference: "2026-12-01-12345675" }],
    [{ partnerReference: "money-3-1764623456781" }],
  ])("%j is accepted", (value) => {
    expect(findCardData(value)).toBeNull();
  });

  it("walks a deep value without recursion and refuses past the depth budget", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => findCardData(deep)).toThrowError(expect.objectContaining({ code: "body_too_complex", status: 400 }));
    expect(findCardData({ a: [[["4242-4242-4242-4242"]]] }, { depth: 4, chars: 100 })).toBe("a[0][0][0]");
  });

  it("refuses past the size budget rather than let an unchecked value through", () => {
    expect(() => findCardData({ a: "x".repeat(60), b: "y".repeat(60) }, { depth: 8, chars: 100 })).toThrowError(
      expect.objectContaining({ code: "body_too_complex" }),
    );
    expect(findCardData({ a: "x".repeat(60) }, { depth: 8, chars: 100 })).toBeNull();
  });
});

describe("findCardData: values every field may hold that only look like card numbers (issue 25)", () => {
  // Each passes the Luhn check, so without its rule it would be refused.
  it.each([
    [{ conversation: { threadTs: "1700000000.000001" } }], // a Slack thread timestamp: a decimal number
    [{ conversation: { threadTs: "１７００００００００．０００００１" } }], // the same in full-width forms
    [{ booker: { phone: "+8613800138002" } }], // an E.164 mobile number (China, 13 digits)
    [{ booker: { phone: "+49 151 234 567 04" } }], // the same written with spaces (Germany)
    [{ text: "call me on +4915123456704 tomorrow" }],
  ])("%j is accepted", (value) => {
    expect(findCardData(value)).toBeNull();
  });

  it.each([
    [{ text: "card 424242424242.4242 thanks" }, "text"], // a dot inside a longer text is not a decimal value
    [{ threadTs: "4242.4242.4242.4242" }, "threadTs"], // several dots: not a decimal number
    [{ phone: "+ 4242 4242 4242 4242" }, "phone"], // a plus, then a space: the digits stand alone
    [{ phone: "+4242424242424242" }, "phone"], // 16 digits: longer than any phone number
  ])("%j is refused at %s", (value, field) => {
    expect(findCardData(value)).toBe(field);
  });
});

describe("findCardData: card numbers written as decimals (issue 37)", () => {
  it.each([
    [{ holder: { name: "4242.424242424242" } }, "holder.name"],
    [{ holder: { surName: "4242424242424242.0" } }, "holder.surName"],
    [{ partnerReference: "ref 4242424242424242.00 x" }, "partnerReference"],
    [{ text: "4242.424242424242" }, "text"],
    [{ text: "５５５５５５５５５５５５．４４４４" }, "text"], // full-width digits and dot
    [{ remarks: "424242424242.4242" }, "remarks"],
    [{ amount: 4242424242424242.5 }, "amount"], // the whole part of a JSON number
    [{ text: "uatp 190000000000000" }, "text"], // 15 digits starting with 1: an airline card (UATP)
  ])("%j is refused at %s", (value, field) => {
    expect(findCardData(value)).toBe(field);
  });

  it.each([
    [{ price: 123.45, total: "123.45" }],
    [{ lng: 0.1 + 0.2 - 74.09486930000001, lat: 40.1 * 1.1 }], // float noise in a number field
    [{ rate: 1.0834567890123 }],
    [{ conversation: { threadTs: "1700000000.000100" } }],
    // Luhn-valid runs no network issues: a Unix time in milliseconds (a partner reference made of
    // one), microseconds, and a run starting with 7.
    [{ partnerReference: "money-3-1764623456787" }],
    [{ ts: "1700000000000001", at: 1764623456787 }],
    [{ ref: "7000 0000 0000 0005" }],
  ])("%j is accepted", (value) => {
    expect(findCardData(value)).toBeNull();
  });
});
