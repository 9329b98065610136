import { type DefinitionNode, type DocumentNode, Kind, parse, print } from "graphql";
import { HOTELX_SDL } from "../../../sandbox/hotelx/src/schema";

/**
 * What POST /api/graphql answers beyond a supplier's Hotel-X schema (issue 40 item 3): the fields
 * and arguments of TravelgateX's public schema (travelgateX/graphql-schema, `hotelx/hubgra`) that
 * published Hotel-X documents select and pass. The sandbox keeps serving HOTELX_SDL, a supplier's
 * part, which the upstream client's documents validate against; the Worker serves HOTELX_SDL with
 * these additions (`hotelxApiSdl`), written to its static assets by `npm run assets`.
 *
 * `extend type` / `extend input` add fields to a type of HOTELX_SDL, or replace a field of the same
 * name (how `search` gains its `filterSearch` and `filter` arguments); other definitions are new types.
 * docs/api-decisions.md ("Issue 40: the public schema's fields") says what each field answers.
 * This module is read at build time and by tests only: the Worker reads the printed SDL from its assets.
 */
export const HOTELX_API_ADDITIONS = /* GraphQL */ `
extend type HotelXQuery {
  search(
    criteria: HotelCriteriaSearchInput
    settings: HotelSettingsInput
    filterSearch: HotelXFilterSearchInput
    filter: FilterInput @deprecated(reason: "deprecated from 2018-08-20. Please, use filterSearch")
  ): HotelSearch
}

extend input HotelCriteriaSearchInput {
  market: String @deprecated(reason: "deprecated from 2019-12-11.")
}

extend input HotelSettingsInput {
  useContext: Boolean @deprecated(reason: "deprecated from 2017-12-12. Redundant.")
  connectUser: String @deprecated(reason: "deprecated from 2018-03-19. Redundant.")
  businessRules: BusinessRulesInput
  plugins: [PluginStepInput!]
}

input BusinessRulesInput {
  optionsQuota: Int
  businessRulesType: BusinessRulesType
}

enum BusinessRulesType {
  CHEAPER_AMOUNT
  ROOM_TYPE
}

input PluginStepInput {
  step: PluginStepType!
  pluginsType: [PluginsInput!]
}

input PluginsInput {
  type: PluginType!
  name: String!
  parameters: [ParameterInput!]
}

input ParameterInput {
  key: String!
  value: String!
}

enum PluginStepType {
  REQUEST
  REQUEST_ACCESS
  RESPONSE_OPTION
  RESPONSE_ACCESS
  RESPONSE
}

enum PluginType {
  PRE_STEP
  HOTEL_MAP
  BOARD_MAP
  ROOM_MAP
  CURRENCY_CONVERSION
  MARKUP
  AGGREGATION
  POST_STEP
  COMMISSION
  MARKETS_GROUP
  AMENITY_MAP
  PROMOTION_MAP
}

extend input HotelXFilterSearchInput {
  plugin: HotelXPluginFilterInput
  rateRules: RateRulesFilterInput
  status: StatusFilterInput
}

extend input FilterInput {
  rateRules: RateRulesFilterInput
}

input HotelXPluginFilterInput {
  includes: [HotelXFilterPluginTypeInput!]
  excludes: [HotelXFilterPluginTypeInput!]
}

input HotelXFilterPluginTypeInput {
  step: PluginStepType!
  type: String!
  name: String!
}

input RateRulesFilterInput {
  includes: [RateRulesType!]
  excludes: [RateRulesType!]
}

input StatusFilterInput {
  includes: [StatusType!]
  excludes: [StatusType!]
}

extend type HotelOptionSearch {
  supplements: [Supplement!]
}

type Supplement {
  code: String!
  name: String
  description: String
  supplementType: SupplementType!
  chargeType: ChargeType!
  mandatory: Boolean!
  durationType: DurationType
  quantity: Int
  unit: UnitTimeType
  effectiveDate: Date @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  expireDate: Date @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  start: Date
  end: Date
  resort: Resort
  price: Price
}

enum SupplementType {
  SKI_PASS
  LESSONS
  MEALS
  EQUIPMENT
  TICKET
  TRANSFERS
  GALA
  ACTIVITY
}

enum DurationType {
  RANGE
  OPEN
}

enum UnitTimeType {
  DAY
  HOUR
}

type Resort {
  code: String!
  name: String
  description: String
}

extend type Room {
  descriptionSupplier: String
  beds: [Bed!]
  ratePlans: [RatePlan!]
  promotions: [Promotion!]
}

type Bed {
  type: String
  description: String @deprecated(reason: "Deprecated from 2019-07-29")
  count: Int
  shared: Boolean
}

type RatePlan {
  code: String!
  supplierCode: String!
  name: String
  effectiveDate: Date @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  expireDate: Date @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  start: Date
  end: Date
}

type Promotion {
  code: String!
  supplierCode: String!
  name: String
  effectiveDate: Date @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  expireDate: Date @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  start: Date
  end: Date
}

extend type RoomPrice {
  breakdown: [PriceBreakdown!]
}

type PriceBreakdown {
  effectiveDate: Date! @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  expireDate: Date! @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  start: Date!
  end: Date!
  price: Price!
}

extend type Price {
  markups: [Markup!]
}

type Markup {
  channel: String
  currency: Currency!
  binding: Boolean!
  net: Float!
  gross: Float
  exchange: Exchange!
  rules: [Rule!]!
}

type Rule {
  id: String!
  name: String
  type: MarkupRuleType!
  value: Float!
}

enum MarkupRuleType {
  PERCENT
  IMPORT
}

extend type HotelOptionQuote {
  cardTypes: [PaymentCardType!]
}

extend type HotelBooking {
  auditData: AuditData
}

extend type HotelBookingDetail {
  supplierCode: String
  accessCode: String
  billingSupplierCode: String
  payable: String
}

extend type BookingHotel {
  creationDate: Date @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  hotelCodeSupplier: String
  boardCodeSupplier: String
}

extend type BookingRoom {
  descriptionSupplier: String
}
`;

/** The fields of an object or input type definition, or of its extension. */
type WithFields = Extract<DefinitionNode, { fields?: readonly { name: { value: string } }[] }>;
const EXTENDS: Partial<Record<Kind, Kind>> = {
  [Kind.OBJECT_TYPE_EXTENSION]: Kind.OBJECT_TYPE_DEFINITION,
  [Kind.INPUT_OBJECT_TYPE_EXTENSION]: Kind.INPUT_OBJECT_TYPE_DEFINITION,
};

/** `base` with `additions` merged in (see HOTELX_API_ADDITIONS): one definition per type, no extension left. */
export const mergeSdl = (base: string, additions: string): string => {
  const definitions = [...parse(base, { noLocation: true }).definitions] as WithFields[];
  const indexOf = (name: string) => definitions.findIndex((d) => "name" in d && d.name?.value === name);
  for (const addition of parse(additions, { noLocation: true }).definitions as WithFields[]) {
    const name = "name" in addition ? addition.name!.value : "";
    const at = indexOf(name);
    const kind = EXTENDS[addition.kind];
    if (!kind) {
      if (at >= 0) throw new Error(`The Hotel-X API additions define ${name} again: extend it instead`);
      definitions.push(addition);
      continue;
    }
    const target = definitions[at];
    if (!target || target.kind !== kind)
      throw new Error(`The Hotel-X API additions extend ${name}, which is not there`);
    const fields = [...(target.fields ?? [])];
    for (const field of addition.fields ?? []) {
      const same = fields.findIndex((f) => f.name.value === field.name.value);
      if (same >= 0) fields[same] = field;
      else fields.push(field);
    }
    definitions[at] = { ...target, fields } as WithFields;
  }
  return `${print({ kind: Kind.DOCUMENT, definitions } as DocumentNode)}\n`;
};

/** The SDL POST /api/graphql executes against: a supplier's Hotel-X schema plus the public schema's fields. */
export const hotelxApiSdl = () => mergeSdl(HOTELX_SDL, HOTELX_API_ADDITIONS);
