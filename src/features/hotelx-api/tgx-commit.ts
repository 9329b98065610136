import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { isReplayedError } from "../../platform/idempotency/idempotency";
import type { CoreConnection } from "../connections";
import {
  bookingBySupplierReference,
  type BookingDeps,
  type BookingRecord,
  commitOnce,
  findBookingByPartnerReference,
  partnerBooking,
} from "../booking";
import { bookingDetailOf, flowSupplyOf, hotelxErrorOf, languageWarnings, namesBooking } from "./tgx-answers";
import type { TgxCommitRequest } from "./tgx-flow-schemas";
import type { TgxError } from "./tgx-schemas";

type Input = TgxCommitRequest["input"];

/**
 * The partner's hold a Hotel-X commit names: by `reference.client` (the partner's clientReference),
 * else `reference.supplier`, made on the connection `accessCode` names, which must be this
 * request's. Whatever does not match, another partner's booking included, is not found.
 */
const holdNamed = async (db: Db, connection: CoreConnection, input: Input): Promise<BookingRecord> => {
  const { client, supplier } = input.reference ?? {};
  const row = client
    ? await findBookingByPartnerReference(db, connection.partnerId, client)
    : await bookingBySupplierReference(db, connection.partnerId, supplier!);
  // The access must be this commit's connection, and the hold made on it.
  const accessId = input.accessCode === String(connection.code) ? connection.id : null;
  if (!row || !namesBooking(row, accessId, { accessCode: input.accessCode, reference: input.reference }))
    throw new ApiError(
      "booking_not_found",
      `Booking not found with ${client ? `clientReference: ${client}` : `supplier reference: ${supplier}`} through access ${input.accessCode}`,
    );
  return row;
};

export type TgxCommitPayload = {
  commitDetails: { reference: ReturnType<typeof bookingDetailOf>["reference"]; status: "OK" } | null;
  errors: TgxError[];
  warnings: TgxError[];
};

/**
 * `mutation { hotelX { commit } }` on POST /api/graphql: the hold committed through the same service
 * as POST /api/bookings/{bookingReference}/commit (`commitOnce`: its Idempotency-Key scope, supplier
 * commit and rules). A refusal (not a hold, expired, the supplier said no) is a Hotel-X error in
 * the payload; `committed` says whether a commit is answered (for usage).
 */
export const commitTgx = async (
  deps: BookingDeps,
  connection: CoreConnection,
  request: TgxCommitRequest,
  meta: { requestId: string; startedAt: number },
  key: string | undefined,
): Promise<{ payload: TgxCommitPayload; replayed: boolean; committed: boolean }> => {
  const warnings = languageWarnings(request.input.language);
  try {
    const hold = await holdNamed(deps.db, connection, request.input);
    const response = await commitOnce(deps, connection, hold.reference, meta, flowSupplyOf(request.settings), {
      key,
      request,
    });
    const committed = await partnerBooking(deps.db, connection.partnerId, hold.reference);
    return {
      payload: {
        commitDetails: { reference: bookingDetailOf(committed).reference, status: "OK" },
        errors: [],
        warnings,
      },
      replayed: response.replayed,
      committed: true,
    };
  } catch (error) {
    const problem = hotelxErrorOf(error);
    if (!problem) throw error;
    return {
      payload: { commitDetails: null, errors: [problem], warnings },
      replayed: isReplayedError(error),
      committed: false,
    };
  }
};
