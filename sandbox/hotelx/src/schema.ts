import {
  type ConstDirectiveNode,
  DEFAULT_DEPRECATION_REASON,
  type FieldDefinitionNode,
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLError,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLList,
  type GraphQLNamedType,
  GraphQLNonNull,
  type GraphQLNullableType,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLType,
  type InputValueDefinitionNode,
  isTypeDefinitionNode,
  Kind,
  type OperationTypeDefinitionNode,
  parse,
  type StringValueNode,
  type TypeDefinitionNode,
  type TypeNode,
  type ValueNode,
  valueFromAST,
} from "graphql";

/**
 * The part of Hotel-X's public schema (travelgateX/graphql-schema, `hotelx/hubgra` and the `admin/core`
 * types it uses) that the sandbox serves: `hotelX { search quote booking }` and
 * `mutation { hotelX { book cancel commit } }` (`HotelCommitInput` without its deprecated `commitReference`). Every type, field, argument and enum value is named and typed
 * as the public schema has it; fields, arguments and types the sandbox does not serve are left out
 * (a request for one is refused as unknown), and so are the interfaces (`Response`, `Priceable`).
 * The sandbox executes requests against it, and the client's tests validate every document it sends.
 * It also has what Edgestay's own Hotel-X shaped answers carry (`auditData`, `BookingHotel.rooms`):
 * the tests check every /api/search/tgx, /api/quote/tgx, /api/book/tgx and /api/cancel/tgx answer
 * against it (test/support/hotelx.ts `hotelxResultProblems`).
 */
export const HOTELX_SDL = /* GraphQL */ `
schema {
  query: Query
  mutation: Mutation
}

type Query {
  hotelX: HotelXQuery
}

type Mutation {
  hotelX: HotelXMutation
}

type HotelXQuery {
  search(
    criteria: HotelCriteriaSearchInput
    settings: HotelSettingsInput
    filterSearch: HotelXFilterSearchInput
    filter: FilterInput
  ): HotelSearch
  quote(criteria: HotelCriteriaQuoteInput!, settings: HotelSettingsInput): HotelQuote
  booking(criteria: HotelCriteriaBookingInput!, settings: HotelSettingsInput): HotelBooking
}

type HotelXMutation {
  book(input: HotelBookInput!, settings: HotelSettingsInput): HotelBookPayload
  cancel(input: HotelCancelInput!, settings: HotelSettingsInput): HotelCancelPayload
  commit(input: HotelCommitInput!, settings: HotelSettingsInput): HotelCommitPayload
}

"ISO 8601 date: YYYY-MM-DD."
scalar Date
"ISO 8601 date and time, e.g. 2017-10-22T13:57:31.123Z."
scalar DateTime
"ISO 4217 code, e.g. EUR."
scalar Currency
"ISO 3166-1 alpha-2 code, e.g. ES."
scalar Country
"ISO 639-1 code, e.g. en."
scalar Language

enum StatusType {
  OK
  RQ
}

enum BookStatusType {
  OK
  KO
  ON_REQUEST
  CANCELLED
  UNKNOWN
  PENDING_COMMIT
}

enum BookingCriteriaType {
  DATES
  REFERENCES
}

enum CancelPenaltyType {
  NIGHTS
  PERCENT
  IMPORT
}

enum ChargeType {
  INCLUDE
  EXCLUDE
}

enum PaymentType {
  MERCHANT
  DIRECT
  CARD_BOOKING
  CARD_CHECK_IN
  PAYX
}

enum RateRulesType {
  NORMAL
  PACKAGE
  OLDER55
  OLDER60
  OLDER65
  CANARY_RESIDENT
  BALEARIC_RESIDENT
  LARGE_FAMILY
  HONEYMOON
  PUBLIC_SERVANT
  UNEMPLOYED
  NON_REFUNDABLE
  MOBILE
  WARRANTY
  ESSENTIAL_WORKER
  NEGOTIATED
  CUSTOM
}

enum PaymentCardType {
  VI
  AX
  BC
  CA
  CB
  CU
  DS
  DC
  T
  R
  N
  L
  E
  JC
  TO
  S
  EC
  EU
  TP
  OP
  ER
  XS
  O
}

enum PersonalTitleType {
  MR
  MRS
  MISS
  MS
}

enum DateType {
  ARRIVAL
  BOOKING
}

input HotelCriteriaSearchInput {
  checkIn: Date!
  checkOut: Date!
  hotels: [String!]
  destinations: [String!]
  occupancies: [RoomInput!]!
  language: Language
  currency: Currency
  nationality: Country
  markets: [String!]
}

input RoomInput {
  paxes: [PaxInput!]!
}

input PaxInput {
  age: Int!
}

"Which accesses a search runs on (Edgestay: the partner's connection codes); none: every tgx connection."
input HotelXFilterSearchInput {
  access: HotelXAccessFilterInput
}

"The deprecated name of filterSearch, read the same way."
input FilterInput {
  access: AccessFilterInput
}

input HotelXAccessFilterInput {
  includes: [ID!]
  excludes: [ID!]
}

input AccessFilterInput {
  includes: [ID!]
  excludes: [ID!]
}

input HotelSettingsInput {
  context: String
  client: ID
  group: ID
  timeout: Int
  operationTimeout: Int
  auditTransactions: Boolean
  testMode: Boolean
  clientTokens: [String!]
  commitRequired: Boolean
}

input HotelCriteriaQuoteInput {
  optionRefId: String!
  language: Language
}

input HotelBookInput {
  optionRefId: String!
  language: Language
  clientReference: String!
  deltaPrice: DeltaPriceInput
  paymentCard: PaymentCardInput
  remarks: String
  holder: HolderInput!
  rooms: [BookRoomInput!]!
}

input DeltaPriceInput {
  amount: Float
  percent: Float
  applyBoth: Boolean!
}

input PaymentCardInput {
  cardType: String
  type: PaymentCardType
  holder: HolderInput!
  number: String!
  CVC: String!
  expire: ExpireDateInput!
  isVCC: Boolean
}

input ExpireDateInput {
  month: Int!
  year: Int!
}

input HolderInput {
  name: String!
  surname: String!
  title: PersonalTitleType
  fidelityCard: String
}

input BookRoomInput {
  occupancyRefId: Int!
  paxes: [BookPaxInput!]!
}

input BookPaxInput {
  name: String!
  surname: String!
  age: Int!
  title: PersonalTitleType
}

input HotelCancelInput {
  accessCode: String
  language: Language
  hotelCode: String
  reference: BookReferenceInput
  bookingID: String
}

input BookReferenceInput {
  client: String
  supplier: String
  hotel: String
  dates: BookReferenceDatesInput
}

input BookReferenceDatesInput {
  start: Date
  end: Date
  creation: Date
}

input HotelCommitInput {
  accessCode: String!
  language: Language
  reference: HotelXCommitReferenceInput
}

input HotelXCommitReferenceInput {
  supplier: String
  client: String
}

input HotelCriteriaBookingInput {
  accessCode: String
  language: Language
  typeSearch: BookingCriteriaType
  references: CriteriaBookingReferencesInput
  dates: CriteriaBookingDatesInput
  bookingID: String
}

input CriteriaBookingReferencesInput {
  hotelCode: String!
  currency: Currency!
  references: [BookReferenceInput!]!
}

input CriteriaBookingDatesInput {
  dateType: DateType!
  start: Date!
  end: Date!
}

type Error {
  code: String!
  type: String!
  description: String!
}

type Warning {
  code: String!
  type: String!
  description: String!
}

type HotelSearch {
  context: String
  auditData: AuditData
  options: [HotelOptionSearch!]
  errors: [Error!]
  warnings: [Warning!]
}

type AuditData {
  transactions: [Transactions!]!
  timeStamp: DateTime!
  processTime: Float!
}

type Transactions {
  request: String!
  response: String!
  timeStamp: DateTime!
}

type HotelOptionSearch {
  supplierCode: String!
  accessCode: String!
  markets: [String!]!
  hotelCode: String!
  hotelCodeSupplier: String!
  hotelName: String
  boardCode: String!
  boardCodeSupplier: String!
  paymentType: PaymentType!
  status: StatusType!
  occupancies: [Occupancy!]!
  rooms: [Room!]!
  price: Price!
  surcharges: [Surcharge!]
  rateRules: [RateRulesType!]
  cancelPolicy: CancelPolicy
  remarks: String
  id: String!
}

type Surcharge {
  code: String
  chargeType: ChargeType!
  mandatory: Boolean!
  price: Price!
  description: String
}

type Occupancy {
  id: Int!
  paxes: [Pax!]!
}

type Pax {
  age: Int!
}

type Room {
  occupancyRefId: Int!
  legacyRoomId: String!
  code: String!
  supplierCode: String!
  description: String
  refundable: Boolean
  units: Int
  roomPrice: RoomPrice!
  cancelPolicy: CancelPolicy
  remarks: String
}

type RoomPrice {
  price: Price!
}

type Price {
  currency: Currency!
  binding: Boolean!
  net: Float!
  gross: Float!
  exchange: Exchange!
  minimumSellingPrice: Float
}

type Exchange {
  currency: Currency!
  rate: Float!
}

type PriceChange {
  currency: String!
  net: Float!
  gross: Float!
  binding: Boolean!
}

type CancelPolicy {
  refundable: Boolean!
  cancelPenalties: [CancelPenalty!]
  description: String
}

type CancelPenalty {
  deadline: DateTime
  isCalculatedDeadline: Boolean!
  hoursBefore: Int!
  penaltyType: CancelPenaltyType!
  currency: Currency!
  value: Float!
}

type HotelQuote {
  auditData: AuditData
  optionQuote: HotelOptionQuote
  errors: [Error!]
  warnings: [Warning!]
}

type HotelOptionQuote {
  optionRefId: String!
  status: StatusType!
  price: Price!
  searchPrice: PriceChange
  cancelPolicy: CancelPolicy!
  remarks: String
  surcharges: [Surcharge!]
  rooms: [RoomOptionQuote!]
  paymentType: PaymentType!
}

type RoomOptionQuote {
  occupancyRefId: ID!
  legacyRoomId: ID!
  code: String!
  supplierCode: String!
  description: String
}

type HotelBookPayload {
  auditData: AuditData
  booking: HotelBookingDetail
  errors: [Error!]
  warnings: [Warning!]
}

type HotelBookingDetail {
  reference: Reference!
  holder: Holder
  hotel: BookingHotel
  price: Price
  quotePrice: PriceChange
  cancelPolicy: CancelPolicy
  remarks: String
  status: BookStatusType!
}

type Holder {
  name: String!
  surname: String!
}

type Reference {
  client: String
  supplier: String
  hotel: String
  bookingID: String
}

type BookingHotel {
  checkIn: Date @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  checkOut: Date @deprecated(reason: "deprecated from 2018-02-28. Incorrect date format.")
  bookingDate: Date
  start: Date
  end: Date
  hotelCode: String
  hotelName: String
  boardCode: String
  occupancies: [Occupancy!]
  rooms: [BookingRoom!]
}

type BookingRoom {
  occupancyRefId: Int
  code: String
  description: String
  price: Price
}

type HotelCancelPayload {
  auditData: AuditData
  cancellation: HotelCancelDetail
  errors: [Error!]
  warnings: [Warning!]
}

type HotelCancelDetail {
  reference: Reference
  cancelReference: String
  status: BookStatusType
  price: Price
  booking: HotelBookingDetail
}

type HotelCommitPayload {
  commitDetails: HotelCommitDetails
  errors: [Error!]
  warnings: [Warning!]
}

type HotelCommitDetails {
  reference: Reference!
  status: BookStatusType!
}

type HotelBooking {
  bookings: [HotelBookingDetail!]
  errors: [Error!]
  warnings: [Warning!]
}
`;

/**
 * Hotel-X's `hotels` content query (`hotelx/hotstc`: `HotelXQuery.hotels`, `HotelXHotelListInput`,
 * `RelayInput` and `PageInfo` of `admin/core`), the part the sandbox's suppliers answer: a supplier's
 * hotel list, paged by its continuation `token` (`criteria.maxSize` per page, 1 to 10,000, 500 when
 * absent; the last page answers `token: null`). Only the sandbox serves it (its schema is
 * HOTELX_SDL with this extension); the API Worker's /api/graphql does not.
 */
export const HOTELX_CONTENT_SDL = /* GraphQL */ `
extend type HotelXQuery {
  hotels(criteria: HotelXHotelListInput!, relay: RelayInput!, token: String): HotelConnection!
}

input HotelXHotelListInput {
  access: ID
  hotelCodes: [String!]
  countries: [Country!]
  maxSize: Int
}

input RelayInput {
  first: Int
  last: Int
  before: String
  after: String
}

type HotelConnection {
  edges: [HotelEdge]
  count: Int!
  token: String
  pageInfo: PageInfo!
}

type PageInfo {
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
  endCursor: String
}

type HotelEdge {
  node: Hotel
  cursor: String!
}

type Hotel {
  code: ID!
  hotelData: HotelData
  createdAt: DateTime!
  updatedAt: DateTime!
}

type HotelData {
  code: ID!
  hotelCode: String!
  hotelCodeSupplier: String
  hotelName: String
  categoryCode: String
  chainCode: String
  exclusiveDeal: Boolean!
  location: Location!
}

type Location {
  address: String
  city: String
  zipCode: String
  country: Country
  coordinates: Coordinates
}

type Coordinates {
  latitude: Float!
  longitude: Float!
}
`;

/** Hotel-X's scalars as its documentation describes them; a value in another form is a GraphQL error. */
const SCALARS: Record<string, { pattern: RegExp; valid?: (s: string) => boolean; what: string }> = {
  Date: {
    pattern: /^\d{4}-\d{2}-\d{2}$/,
    valid: (s) => {
      const day = new Date(`${s}T00:00:00Z`);
      return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(s);
    },
    what: "an ISO 8601 date (YYYY-MM-DD)",
  },
  DateTime: {
    pattern: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
    valid: (s) => !Number.isNaN(Date.parse(s)),
    what: "an ISO 8601 date and time",
  },
  Currency: { pattern: /^[A-Z]{3}$/, what: "an ISO 4217 currency code" },
  Country: { pattern: /^[A-Z]{2}$/, what: "an ISO 3166-1 alpha-2 country code" },
  Language: { pattern: /^[a-z]{2}$/, what: "an ISO 639-1 language code" },
};

/** A scalar's checks: a value in another form is a GraphQL error, on input and on output. */
const checkedScalar = (name: string) => {
  const rule = SCALARS[name];
  if (!rule) throw new Error(`The Hotel-X SDL declares scalar ${name} without a rule`);
  const check = (value: unknown) => {
    if (typeof value !== "string" || !rule.pattern.test(value) || (rule.valid && !rule.valid(value)))
      throw new GraphQLError(`${name} must be ${rule.what}, got ${JSON.stringify(value)}`);
    return value;
  };
  return {
    serialize: check,
    parseValue: check,
    parseLiteral: (node: ValueNode) => {
      if (node.kind !== Kind.STRING) throw new GraphQLError(`${name} must be a string: ${rule.what}`);
      return check(node.value);
    },
  };
};

const BUILT_IN = [GraphQLString, GraphQLInt, GraphQLFloat, GraphQLBoolean, GraphQLID];
type Described = { description?: StringValueNode; directives?: readonly ConstDirectiveNode[] };
const about = (node: Described) => {
  const deprecated = node.directives?.find((d) => d.name.value === "deprecated");
  const reason = deprecated?.arguments?.find((a) => a.name.value === "reason")?.value;
  return {
    description: node.description?.value,
    deprecationReason: deprecated
      ? reason?.kind === Kind.STRING
        ? reason.value
        : DEFAULT_DEPRECATION_REASON
      : undefined,
  };
};

/**
 * The executable schema: the SDL's types, made with graphql-js's own constructors from its parsed
 * SDL, the scalars checked. The API Worker runs it too (POST /api/graphql), and graphql-js's
 * `buildSchema` would bring its SDL validation and schema extension code into the Worker (about
 * 2 KiB gzipped of a bundle capped at 260). The Hotel-X SDL uses object, input, enum and scalar
 * types only; a test checks this schema prints as `buildSchema(HOTELX_SDL)`'s, which validates the SDL.
 * The sandbox passes HOTELX_SDL; the API Worker passes the same text read from its static assets,
 * so the SDL stays out of its bundle.
 */
export const buildHotelxSchema = (sdl: string) => {
  const document = parse(sdl, { noLocation: true });
  const types = new Map<string, GraphQLNamedType>(BUILT_IN.map((t) => [t.name, t]));
  const definitions = new Map<string, TypeDefinitionNode>();
  // `extend type X { ... }`: fields added to an object type defined elsewhere in the SDL (HOTELX_CONTENT_SDL).
  const extensions = new Map<string, FieldDefinitionNode[]>();
  let roots: readonly OperationTypeDefinitionNode[] = [];
  for (const d of document.definitions) {
    if (d.kind === Kind.SCHEMA_DEFINITION) roots = d.operationTypes;
    else if (isTypeDefinitionNode(d)) definitions.set(d.name.value, d);
    else if (d.kind === Kind.OBJECT_TYPE_EXTENSION)
      extensions.set(d.name.value, [...(extensions.get(d.name.value) ?? []), ...(d.fields ?? [])]);
    else throw new Error(`The Hotel-X SDL builder does not take ${d.kind}`);
  }
  const typeOf = (node: TypeNode): GraphQLType =>
    node.kind === Kind.NON_NULL_TYPE
      ? new GraphQLNonNull(typeOf(node.type) as GraphQLNullableType)
      : node.kind === Kind.LIST_TYPE
        ? new GraphQLList(typeOf(node.type))
        : named(node.name.value);
  const inputs = (values: readonly InputValueDefinitionNode[] = []) =>
    Object.fromEntries(
      values.map((v) => {
        const type = typeOf(v.type) as GraphQLInputType;
        return [
          v.name.value,
          { type, ...about(v), ...(v.defaultValue ? { defaultValue: valueFromAST(v.defaultValue, type) } : {}) },
        ];
      }),
    );
  const make = (d: TypeDefinitionNode): GraphQLNamedType => {
    const name = d.name.value;
    switch (d.kind) {
      case Kind.SCALAR_TYPE_DEFINITION:
        return new GraphQLScalarType({ name, ...about(d), ...checkedScalar(name) });
      case Kind.ENUM_TYPE_DEFINITION:
        return new GraphQLEnumType({
          name,
          ...about(d),
          values: Object.fromEntries((d.values ?? []).map((v) => [v.name.value, about(v)])),
        });
      case Kind.INPUT_OBJECT_TYPE_DEFINITION:
        return new GraphQLInputObjectType({ name, ...about(d), fields: () => inputs(d.fields) });
      case Kind.OBJECT_TYPE_DEFINITION:
        return new GraphQLObjectType({
          name,
          ...about(d),
          fields: () =>
            Object.fromEntries(
              [...(d.fields ?? []), ...(extensions.get(name) ?? [])].map((f) => [
                f.name.value,
                { type: typeOf(f.type) as GraphQLOutputType, args: inputs(f.arguments), ...about(f) },
              ]),
            ),
        });
      default:
        throw new Error(`The Hotel-X SDL builder does not take ${d.kind} (${name})`);
    }
  };
  function named(name: string): GraphQLNamedType {
    let type = types.get(name);
    if (!type) {
      const definition = definitions.get(name);
      if (!definition) throw new Error(`Unknown type ${name} in the Hotel-X SDL`);
      type = make(definition);
      types.set(name, type);
    }
    return type;
  }
  const root = (operation: string) => {
    const type = roots.find((r) => r.operation === operation)?.type.name.value;
    return type ? (named(type) as GraphQLObjectType) : undefined;
  };
  return new GraphQLSchema({
    query: root("query"),
    mutation: root("mutation"),
    types: [...definitions.keys()].map(named),
  });
};
