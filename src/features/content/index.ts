export { contentRoutes } from "./routes";
export { accommodations } from "./tables";
export { FEE_SCHEDULE_CURRENCY, FEE_TYPES, defaultFeeSchedule, feeScheduleOf } from "./fee-schedule";
export type { FeeBasis, FeeSchedule, FeeSubject, FeeType, MandatoryFee, OptionalFee } from "./fee-schedule";
export { feeScheduleInputSchema, feeScheduleSchema, feeSchedulesOf, replaceFeeSchedule } from "./fees";
export { accommodationFees } from "./tables";
