import { describe, expect, it } from "vitest";
import { post } from "../../../test/support/api";
import { act, attachBody, chat, startSession } from "../../../test/support/chat";

const ATTACH = "/v1/hotel-ea/payment-methods/attach";
const written = [
  "4242.4242.4242.4242",
  "4242 - 4242 - 4242 - 4242",
  "４２４２４２４２４２４２４２４２",
  "５５５５　５５５５　５５５５　４４４４",
];

describe("card numbers with separators or full-width digits are refused over HTTP", () => {
  it.each(written)("chat text %s", async (pan) => {
    const id = await startSession(`card-sep-${pan.length}`);
    const res = await chat("POST", "/events", { sessionId: id, text: `my card is ${pan} exp 12/30` });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("raw_card_data_refused");
    expect(res.text).not.toContain(pan);
    expect((await chat("GET", `/sessions/${id}`)).json.data.events).toEqual([]);
  });

  it("chat payload values at any depth and payload keys", async () => {
    const id = await startSession("card-in-keys");
    for (const [payload, field] of [
      [{ paymentMethodId: "pm_x", note: { deeper: ["4242.4242.4242.4242"] } }, "payload.note.deeper[0]"],
      [{ paymentMethodId: "pm_x", "4242 4242 4242 4242": "x" }, "payload.<key>"],
      [{ paymentMethodId: "pm_x", "４２４２４２４２４２４２４２４２": 1 }, "payload.<key>"],
    ] as const) {
      const res = await act(id, "action_confirm_payment_card", payload, "k-card");
      expect(res.status).toBe(400);
      expect(res.json.code).toBe("raw_card_data_refused");
      expect(res.json.details).toEqual({ field });
      expect(res.text).not.toMatch(/4242 4242|４２４２/);
    }
  });

  it.each(written)("attach body %s", async (pan) => {
    const res = await post(ATTACH, attachBody("any-token", { note: pan }), { apiKey: null });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("raw_card_data_refused");
    expect(res.json.details).toEqual({ field: "note" });
  });
});
