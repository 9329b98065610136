import { defaultFeeSchedule, type FeeSubject } from "../../src/features/content";
import { convertMinor, percentOfMinor, sumMinor, toMinor } from "../../src/platform/money";

/** The subject of a searched accommodation's default fee schedule (type from its served type name). */
export const feeSubjectOf = (hotel: {
  accommodationCode: string;
  accommodationType: string;
  location: { country: string };
}): FeeSubject => ({
  code: hotel.accommodationCode,
  country: hotel.location.country,
  type: hotel.accommodationType.toLowerCase(),
});

/**
 * What the default schedule charges at booking on one room for nights of these sold bases (minor
 * units of `currency`): each percentage of each night's base, each fixed fee per night converted from USD at `rate`.
 */
export const includedChargesMinor = (subject: FeeSubject, nightBases: number[], currency = "USD", rate = 1) =>
  sumMinor(
    nightBases.map((base) =>
      sumMinor(
        defaultFeeSchedule(subject)
          .mandatory.filter((fee) => fee.included)
          .map((fee) =>
            fee.basis === "PERCENT_OF_BASE"
              ? percentOfMinor(base, fee.value)
              : convertMinor(toMinor(fee.value, "USD"), "USD", currency, rate),
          ),
      ),
    ),
  );
