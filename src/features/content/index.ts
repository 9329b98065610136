export { contentRoutes } from "./routes";
export { accommodationDocument, accommodationFacts, accommodationsToMatch, cityCentre } from "./accommodation-reads";
export type { AccommodationColumns } from "./accommodation-reads";
export { FEE_SCHEDULE_CURRENCY, FEE_TYPES, defaultFeeSchedule, feeScheduleOf } from "./fee-schedule";
export type { FeeBasis, FeeSchedule, FeeSubject, FeeType, MandatoryFee, OptionalFee } from "./fee-schedule";
export {
  feeScheduleInputSchema,
  feeScheduleSchema,
  feeSchedulesOf,
  replaceFeeSchedule,
  storedFeeSchedulesSql,
} from "./fees";
