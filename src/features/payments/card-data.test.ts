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
