export {
  accommodationByCode,
  accommodationsByCodes,
  accommodationsOf,
  haversineKm,
  nameSearchCharacters,
} from "./accommodations";
export {
  EXCHANGE_RATE_BOUNDS,
  EXCHANGE_RATE_BOUNDS_MESSAGE,
  exchangeFor,
  readExchangeRates,
  readExchangeTable,
  replaceExchangeRates,
} from "./exchange-rates";
export type { ExchangeTable } from "./exchange-rates";
export {
  createSupplier,
  deleteSupplier,
  getSupplier,
  listSuppliers,
  suppliersByCodes,
  updateSupplier,
} from "./suppliers";
export { roomBeds } from "./catalogue";
export { sellSuppliers } from "./sold-suppliers";
export type { DirectorySupplier, SupplierInput, SupplierKeys, SupplierView } from "./suppliers";
export { registerSupplierKind, supplierKind, supplierKinds } from "./kinds/registry";
export type { StoredSupplier, SupplierCapabilities, SupplierEnv, SupplierKind } from "./kinds/kind";
export { getUpstream, removeUpstream, setUpstream } from "./upstreams";
export type { UpstreamInput, UpstreamView } from "./upstreams";
export { INVENTORY_SUPPLIER, hasLocalWrites, inventorySupplier } from "./inventory-supplier";
export type { AllotmentWrite, HoldTaker } from "./allotment";
export { pastNightHolds } from "./allotment";
export {
  PUBLIC_ACCESS,
  RATE_RULES,
  SALES_CHANNELS,
  VISIBILITY_TYPES,
  maySell,
  rateAccessFromText,
  rateAccessOf,
  rateAccessText,
  unmetAgeRule,
} from "./rate-rules";
export type { RateAccess, RateRule, SalesChannel, Visibility } from "./rate-rules";
export { supplyRoutes } from "./routes";
export { hotelMatchingRoutes } from "./hotel-matching/routes";
export { supplierMapRoutes } from "./maps/routes";
export { supplierMapsOf } from "./maps/map-reads";
export type { SupplierMap } from "./maps/map-reads";
export type { MappedBoard } from "./maps/board-map";
export { convertCharge, convertDueAtProperty, convertPolicy, convertRate, itemizedRate, sumRates } from "./rate-lines";
export type { AmountConversion, RateTotals } from "./rate-lines";
export {
  isSellable,
  sellingTotal,
  logUnsellable,
  needsExchangeRates,
  sellingTermsFor,
} from "./selling-price";
export type { SellingTerms } from "./selling-price";
export {
  DEFAULT_SUPPLIER_TIMEOUT_MS,
  MAX_SUPPLIER_TIMEOUT_MS,
  callSupplier,
  supplierFailureError,
  supplyOptionsOf,
} from "./supplier-deadline";
export type { SupplyOptions } from "./supplier-deadline";
export {
  CHARGE_TYPES,
  MIXED_PRODUCT_SEPARATOR,
  PAYMENT_TYPES,
  SupplierFailure,
  SupplierRefusal,
  supplierFailureCodes,
} from "./supplier";
export type {
  AccommodationSelection,
  BookAnswer,
  BookOptions,
  BookingGuest,
  SearchAudience,
  BookedStay,
  BookingLookup,
  CancelPolicy,
  Offer,
  OfferRef,
  OfferRoom,
  PaymentType,
  ProviderTransaction,
  SearchAsk,
  ChargeType,
  CurrencyWarning,
  DueAtProperty,
  NightPrice,
  PropertyCharge,
  Rate,
  RateCharge,
  Stay,
  Supplier,
  SupplierBooking,
  SupplierFailureCode,
  SupplyAccommodation,
} from "./supplier";
