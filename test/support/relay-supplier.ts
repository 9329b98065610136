import { inventorySupplier } from "../../src/features/supply/inventory-supplier";
import { database } from "../../src/platform/db/client";
import { recordProviderTransaction } from "../../src/features/supply/provider-transactions";
import {
  SupplierFailure,
  SupplierRefusal,
  type Supplier,
  type SupplierBooking,
  type SupplierCall,
} from "../../src/features/supply/supplier";

/**
 * A second supplier for tests of the booking side's failure paths (the Hotel-X supplier has its own,
 * over the sandbox): it sells the embedded inventory (same rooms, same allotment, our own D1) through the
 * Supplier interface as a remote supplier would, and misbehaves on demand. It keeps its own record
 * of bookings by client reference, refuses a second booking under one, and answers look-ups from it.
 */
export type RelayMode = {
  /** `hang`: never answers (only the caller's deadline ends the wait); `error`/`unavailable`: throws that SupplierFailure. */
  search?: "answer" | "hang" | "error" | "unavailable";
  quote?: "answer" | "hang" | "error";
  /**
   * `unknown`: books, then its answer is lost (answers `unknown`). `hang`: the request is lost
   * before anything is booked and no answer ever comes. `refuse`: refuses.
   */
  book?: "answer" | "unknown" | "hang" | "refuse";
  /** `error`: the look-up by client reference fails (the booking stays pending). */
  lookup?: "answer" | "error";
  /** Book waits for this before it does what its mode says, so a test can act while a booking is in flight. */
  bookGate?: Promise<void>;
};

export type RelaySupplier = Supplier & {
  mode: RelayMode;
  /** Bookings this supplier holds, by client reference; and how many book requests it received. */
  readonly held: Map<string, SupplierBooking>;
  readonly bookRequests: string[];
};

/** Waits for the caller's deadline and fails as the deadline says; without a signal, forever. */
const hang = (call: SupplierCall | undefined) =>
  new Promise<never>((_, reject) => {
    call?.signal?.addEventListener("abort", () => reject(call.signal!.reason));
  });

export const relaySupplier = (d1: D1Database, name = "relay", mode: RelayMode = {}): RelaySupplier => {
  const inventory = inventorySupplier(database(d1));
  const held = new Map<string, SupplierBooking>();
  const bookRequests: string[] = [];
  // What a client sends: credentials included, so the redaction of providerTransactions is exercised.
  const exchange = (
    call: SupplierCall | undefined,
    operation: "search" | "quote" | "book" | "cancel" | "bookingByReference",
    variables: unknown,
    answer: unknown,
  ) =>
    recordProviderTransaction(call, {
      supplier: name,
      operation,
      request: JSON.stringify({
        query: `${operation}(...)`,
        variables,
        credentials: { apiKey: "relay-secret-key" },
        card: { cardNumber: "4242424242424242", cvc: "123" },
      }),
      response: JSON.stringify({ data: answer }),
      status: 200,
      durationMs: 0,
    });
  const relay: RelaySupplier = {
    name,
    currency: inventory.currency,
    remote: true,
    // Books in one step only: a hold asked of it is refused before it is asked anything.
    capabilities: { localWrites: false, twoStepBooking: false, modifications: false },
    mode,
    held,
    bookRequests,

    async search(ask, stay, now, terms, call) {
      if (relay.mode.search === "hang") return hang(call);
      if (relay.mode.search === "error") throw new SupplierFailure("supplier_error", name, `${name} answered HTTP 500`);
      if (relay.mode.search === "unavailable")
        throw new SupplierFailure("supplier_unavailable", name, `${name} circuit is open`);
      const answer = await inventory.search(ask, stay, now, terms);
      const hotels = ask.accommodations.map((a) => a.code);
      exchange(call, "search", { hotels, stay }, { accommodations: answer.accommodations.length });
      return answer;
    },

    async quote(accommodation, ref, stay, now, terms, call) {
      if (relay.mode.quote === "hang") return hang(call);
      if (relay.mode.quote === "error") throw new SupplierFailure("supplier_error", name, `${name} answered HTTP 500`);
      const offer = await inventory.quote(accommodation, ref, stay, now, terms);
      exchange(call, "quote", { hotel: accommodation.code, ...ref }, { price: offer?.rate.chargeTotal ?? null });
      return offer;
    },

    async book(accommodation, ref, stay, clientReference, call) {
      bookRequests.push(clientReference);
      await relay.mode.bookGate;
      if (relay.mode.book === "hang") return hang(call);
      if (relay.mode.book === "refuse") throw new SupplierRefusal("failed");
      // One booking per client reference, as Hotel-X suppliers enforce.
      if (held.has(clientReference)) throw new SupplierRefusal("failed");
      const booked = await inventory.book(accommodation, ref, stay, clientReference);
      if (booked.status !== "confirmed") return booked;
      held.set(clientReference, {
        supplierReference: booked.supplierReference,
        hotelConfirmationNumber: booked.hotelConfirmationNumber,
      });
      exchange(call, "book", { clientReference }, { reference: booked.supplierReference });
      return relay.mode.book === "unknown" ? { status: "unknown" } : booked;
    },

    async cancel(stay, call) {
      await inventory.cancel(stay);
      exchange(call, "cancel", { reference: stay.supplierReference }, { status: "CANCELLED" });
    },

    async bookingByReference(clientReference, call) {
      if (relay.mode.lookup === "error") throw new SupplierFailure("supplier_error", name, `${name} answered HTTP 500`);
      const found = held.get(clientReference);
      exchange(call, "bookingByReference", { clientReference }, found ?? null);
      return found ? { status: "confirmed", ...found } : { status: "not_found" };
    },
  };
  return relay;
};
