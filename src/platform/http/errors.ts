import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Every error code of the API, once, with the one status it is answered with. `ApiError` takes a
 * code from here and looks its status up, so a code cannot be sent with two statuses. The message
 * is chosen where the error is thrown (the spec fixes many word for word); the code is the stable,
 * machine-readable half. A new error adds its line here.
 */
export const errorStatus = {
  // Request shape (the body gate, the validation hook, hand-written checks of one field)
  invalid_request: 400,
  malformed_json: 400,
  unsupported_content_type: 400,
  body_too_deep: 400,
  body_too_complex: 400,
  body_too_large: 413,
  invalid_dates: 400,
  invalid_occupancy: 400,
  invalid_cursor: 400,
  // GET /api/events: the events after the cursor were deleted (retention); never a page that skips them
  cursor_expired: 410,
  cursor_mismatch: 400,
  cursor_partner: 400,
  invalid_page_token: 400,
  page_token_mismatch: 400,
  invalid_timeout: 400,
  nothing_to_change: 400,
  unsupported_type: 400,
  unsupported_country: 400,
  unsupported_currency: 400,
  unsupported_account_type: 400,
  invalid_exchange_rates: 400,
  invalid_upstream_url: 400,
  invalid_webhook_url: 400,
  raw_card_data_refused: 400,
  idempotency_key_required: 400,
  invalid_idempotency_key: 400,
  text_required: 400,
  destination_unreadable: 400,

  // Credentials
  api_key_required: 401,
  invalid_api_key: 401,
  bearer_token_required: 401,
  invalid_token: 401,
  invalid_credentials: 401,
  operator_token_required: 401,
  invalid_operator_token: 403,
  collector_key_required: 401,
  invalid_collector_key: 401,
  missing_partner_api_key: 401,
  invalid_partner_api_key: 403,
  invalid_portal_token: 401,
  page_token_signature: 401,
  page_token_partner: 401,
  page_token_expired: 401,
  user_inactive: 403,
  admin_required: 403,
  origin_not_allowed: 403,

  // Connections (spec section 7: search has four messages, quote/book/cancel one 403)
  no_connection: 400,
  malformed_connection_code: 400,
  unknown_connection: 401,
  connection_access_denied: 401,
  invalid_connection_code: 403,
  connection_not_found: 404,
  connection_of_other_partner: 403,
  other_partner: 403,
  connection_in_use_conflict: 409,
  connection_has_bookings: 409,
  upstream_not_found: 404,

  // Partners, users, keys, webhooks
  partner_not_found: 404,
  partner_exists: 409,
  user_not_found: 404,
  cannot_delete_self: 400,
  target_is_admin: 400,
  last_admin: 409,
  conflict: 409,
  api_key_not_found: 404,
  webhook_not_found: 404,
  webhook_event_not_found: 404,
  webhook_limit_reached: 409,

  // Content and supply
  accommodation_not_found: 404,
  room_type_not_found: 404,
  rate_plan_not_found: 404,
  allotment_below_sold: 409,

  // Quote and book
  option_expired_or_invalid: 400,
  option_invalid: 400,
  quote_expired_or_invalid: 400,
  accommodation_mismatch: 400,
  stay_dates_mismatch: 400,
  occupancy_mismatch: 400,
  occupancy_not_found: 400,
  currency_mismatch: 400,
  payment_type_mismatch: 400,
  payment_card_required: 400,
  payment_card_not_found: 400,
  room_unavailable: 400,
  rate_rule_not_met: 400,
  price_changed: 400,
  missing_rate_snapshot: 400,
  missing_supplier_metadata: 400,
  booking_failed: 400,
  booking_not_allowed: 403,
  partner_reference_conflict: 409,
  card_expired: 400,

  // Bookings and cancellation
  booking_not_found: 404,
  booking_not_owned: 403,
  booking_not_cancellable: 400,
  booking_pending: 409,
  booking_already_cancelled: 409,
  after_check_in: 400,
  cancel_policy_not_found: 400,
  not_refundable: 400,
  room_not_found: 400,
  room_already_cancelled: 409,
  partial_cancel_not_supported: 409,
  booking_changed: 409,
  hold_not_supported: 409,
  hold_expired: 409,
  // Fair holds (issue 37): a limit of the operator's, not a rate limit (409, so clients do not retry it blindly)
  hold_limit_reached: 409,
  hold_share_exceeded: 409,
  hold_too_far_ahead: 409,
  booking_not_held: 409,
  booking_not_modifiable: 409,
  modification_not_supported: 409,
  modification_preview_not_found: 404,
  modification_preview_expired: 409,
  modification_outdated: 409,

  // Chat
  session_not_found: 404,
  actor_mismatch: 403,
  invalid_session_state: 409,
  session_erased: 409,
  option_not_in_shortlist: 400,
  payment_method_not_found: 400,
  booking_not_in_session: 404,

  // Retries and limits
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  rate_limit_exceeded: 429,
  login_locked: 429,
  login_slowed: 429,

  // Routing
  not_found: 404,
  method_not_allowed: 405,
  not_implemented: 501,

  // The supplier behind a quote or a cancel (retryable; nothing was changed)
  supplier_error: 502,
  supplier_unavailable: 503,
  supplier_timeout: 504,
  // An upstream priced the option in a currency the operator has no exchange rate for
  currency_not_convertible: 422,

  // The platform
  misconfigured: 503,
  internal_error: 500,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof errorStatus;

/**
 * What each code is sent with: the message word for word where the throw site fixes it (the
 * spec's own text included), else its form, `{name}` standing for what the request or the record
 * fills in. The document lists them beside each code, and the conformance check of the workerd
 * tests fails a response whose message is not one of its code's, so this cannot drift from the code.
 */
export const errorMessages = {
  invalid_request: [
    "{field} is required",
    "{field}: {problem}",
    "{field} is not supported; {hint}",
    "Request body: {problem}",
    "Unknown field: {field}",
    "optionId is required",
    "optionRefId is required",
    "occupancyId is required when providing occupancies",
    "bookingReference is required for cancellation",
    "Exactly one selector is required: destinations.accommodations, geo(lat/lng), or accommodationName",
    "filter.access: use includes or excludes, not both",
    "Send filterSearch or filter (its deprecated name), not both",
    "session-id header is required (16 to 128 characters of A-Z a-z 0-9 . _ : -)",
    "test-scenario must be one of: {scenarios}",
    "The access-code header and settings.access.code name different connections",
    "partnerReference cannot be combined with {fields}",
    "criteria.bookingID, criteria.references (typeSearch REFERENCES) or criteria.dates (typeSearch DATES) is required",
    "payload is not supported for kind=search_query; send text only",
    "text is not supported for kind={kind}; send payload only",
    "password must be an MD5 hex string (32 hexadecimal characters)",
  ],
  malformed_json: ["Malformed JSON in request body"],
  unsupported_content_type: [
    "Content-Type must be application/json",
    "Content-Type charset must be utf-8 (or left out): JSON is read as UTF-8",
  ],
  body_too_deep: ["Request body nests too deeply"],
  body_too_complex: ["Request body is too large or nests too deeply to be checked for card data"],
  body_too_large: ["Request body too large: the limit is {bytes} bytes"],
  invalid_dates: [
    "checkOut must be after checkIn",
    "checkIn must not be in the past",
    "checkIn must be within {days} days",
    "A stay is at most {nights} nights",
    "to must not be before from",
    "A usage range is at most {days} days (from and to included)",
    "Dates must lie within the next 365 days",
    "At most {nights} nights per request",
    "change.{field}: {one of the above}",
  ],
  invalid_occupancy: [
    "occupancyId must be unique within a request",
    "Each occupancy needs at least one adult (age 18 or over)",
    "change.occupancies: {one of the above}",
  ],
  invalid_cursor: [
    "Invalid cursor",
    "cursor: Invalid cursor",
    "after: no event has this sequence yet; pass the nextCursor of a page read",
  ],
  cursor_expired: [
    "after: the events following this cursor are past the {days} days the log keeps; read again without after",
  ],
  cursor_mismatch: ["{parameter} in query must match {parameter} in cursor"],
  cursor_partner: ["cursor does not belong to the current partner"],
  invalid_page_token: ["Invalid pageToken format"],
  page_token_mismatch: ["{parameter} in query must match {parameter} in pageToken"],
  invalid_timeout: ["settings.timeout must be a whole number of milliseconds"],
  nothing_to_change: ["Give at least one of allotment, price, stopSell"],
  unsupported_type: ["Unsupported type"],
  unsupported_country: ["Unsupported country: {country}. Currently only US is supported"],
  unsupported_currency: ["Unsupported currency"],
  unsupported_account_type: ["accountType phone is not supported; use email"],
  invalid_exchange_rates: ["The rate of the base currency itself must be 1"],
  invalid_upstream_url: ["url {problem}"],
  invalid_webhook_url: ["url {problem}"],
  raw_card_data_refused: [
    "Raw card data (card number or security code) must never be sent; send only the payment method token, brand, last 4 digits and expiry",
  ],
  idempotency_key_required: ["idempotencyKey is required for kind={kind}"],
  invalid_idempotency_key: ["{header} must be 1 to 255 visible ASCII characters"],
  text_required: ["text is required for kind=search_query"],
  destination_unreadable: ["Tell me a city or a hotel name of 2 to 200 characters."],

  api_key_required: ["API key is required"],
  invalid_api_key: ["Invalid API key"],
  bearer_token_required: ["Bearer token is required"],
  invalid_token: ["Invalid or expired token"],
  invalid_credentials: ["Invalid email or password"],
  operator_token_required: ["Operator token is required"],
  invalid_operator_token: ["Invalid operator token"],
  collector_key_required: ["Collector key is required"],
  invalid_collector_key: ["Invalid collector key"],
  missing_partner_api_key: ["Missing partner API key."],
  invalid_partner_api_key: ["Invalid partner API key."],
  invalid_portal_token: ["portalToken is invalid, expired or already used"],
  page_token_signature: ["Invalid pageToken signature"],
  page_token_partner: ["pageToken does not belong to the current partner"],
  page_token_expired: ["pageToken expired"],
  user_inactive: ["User is inactive"],
  admin_required: ["Require partner admin role"],
  origin_not_allowed: ["This origin may not post signals with this collector key"],

  no_connection: ["No connection"],
  malformed_connection_code: ["Invalid connection code"],
  unknown_connection: ["Connection not found"],
  connection_access_denied: ["Connection access denied"],
  invalid_connection_code: ["Invalid connection code."],
  connection_not_found: ["Connection not found"],
  connection_of_other_partner: ["This connection does not belong to your partner"],
  other_partner: [
    "You can only access connections for your own partner",
    "Cannot delete user from another partner",
    "Cannot update user from another partner",
  ],
  connection_in_use_conflict: ["Another connection is already currentInUse for this partner/apiType/connectionType"],
  connection_has_bookings: ["Connection has bookings and cannot be deleted; disable it instead"],
  upstream_not_found: ["Connection has no upstream"],

  partner_not_found: ["Partner not found"],
  partner_exists: ["Partner already exists"],
  user_not_found: ["User not found"],
  cannot_delete_self: ["Cannot delete your own user"],
  target_is_admin: ["Can only update user role status, not admin"],
  last_admin: ["Cannot delete the partner's last active admin"],
  conflict: ["Conflict"],
  api_key_not_found: ["API key not found"],
  webhook_not_found: ["Webhook endpoint not found"],
  webhook_event_not_found: ["Webhook event not found"],
  webhook_limit_reached: ["A partner can have at most {count} webhook endpoints"],

  accommodation_not_found: ["Accommodation not found"],
  room_type_not_found: ["Room type not found"],
  rate_plan_not_found: ["Rate plan not found"],
  allotment_below_sold: ["Allotment cannot be set below the rooms already sold"],

  option_expired_or_invalid: ["Option reference expired or invalid"],
  option_invalid: ["Option reference invalid"],
  quote_expired_or_invalid: ["Quote reference expired or invalid. Please quote again."],
  accommodation_mismatch: ["Accommodation code mismatch"],
  stay_dates_mismatch: ["Stay dates mismatch"],
  occupancy_mismatch: ["Occupancy details mismatch"],
  occupancy_not_found: ["Occupancy {occupancyId} not found in cached quote"],
  currency_mismatch: ["Currency mismatch"],
  payment_type_mismatch: ["paymentType {requested} does not match the option's paymentType {option}"],
  payment_card_required: [
    "bookCriteria.paymentCard is required for a PayAtProperty option: a saved card's actorId and paymentMethodId",
  ],
  payment_card_not_found: ["bookCriteria.paymentCard: no saved card with this paymentMethodId for this actorId"],
  room_unavailable: [
    "Room is unavailable",
    "{field}: the hotel does not sell room {roomCode} (rate plan {ratePlanCode}) for {checkIn} to {checkOut} with these guests",
  ],
  rate_rule_not_met: [
    "{field}: the booked rate plan {ratePlanCode} is {rule}, sold only to a stay with a guest aged {age} or over: keep such a guest, or cancel and book a rate for these guests",
  ],
  price_changed: ["Price changed"],
  missing_rate_snapshot: ["Missing rate snapshot for booking"],
  missing_supplier_metadata: ["Missing supplier metadata for booking"],
  booking_failed: ["The booking was not successful."],
  booking_not_allowed: ["Booking is not available on metasearch connections"],
  partner_reference_conflict: [
    "partnerReference is already used by a different booking",
    "clientReference is already used by a booking; a book from a search option is retried with its Idempotency-Key",
  ],
  card_expired: ["The card has expired"],

  booking_not_found: [
    "Booking not found with bookingReference: {bookingReference}",
    "Booking not found with bookingReference: {bookingReference} through connection {code}",
    "Booking not found with partnerReference: {partnerReference}",
    "Booking not found with clientReference: {clientReference} at hotel {hotelCode} through access {accessCode}",
  ],
  booking_not_owned: ["This booking does not belong to the current partner"],
  booking_not_cancellable: ["Booking cannot be cancelled. Current status: {status}"],
  booking_pending: [
    "Booking is pending: the supplier has not confirmed it yet. Retry the cancellation once it is confirmed.",
    "Booking is pending: the supplier has not confirmed it yet",
  ],
  booking_already_cancelled: ["Booking is already {status}"],
  after_check_in: ["This booking can no longer be cancelled after the check-in date"],
  cancel_policy_not_found: ["Cancellation policy not found for this booking"],
  not_refundable: ["This booking is not refundable according to the cancellation policy"],
  room_not_found: [
    "{field}: this booking keeps no rooms of its own; cancel it whole, without {field}",
    "{field}: no room {occupancyRefId} in this booking (its occupancyRefIds: {occupancyRefIds})",
  ],
  room_already_cancelled: ["Room {occupancyRefId} of this booking is already cancelled"],
  partial_cancel_not_supported: [
    "This booking's supplier cancels whole bookings only: cancel every room (without input.rooms)",
  ],
  booking_changed: ["The booking changed while this request ran; retry it"],
  hold_not_supported: [
    "This option's supplier cannot hold rooms: book it without bookCriteria.hold (nothing was booked)",
  ],
  hold_expired: ["The hold expired at {holdExpiresAt}: its rooms were given back. Book again"],
  hold_limit_reached: [
    "This partner has reached its limit of {value} live holds: commit or cancel one first (nothing was held)",
    "This hold would take this partner's live holds past {value} room-nights, the most allowed: commit or cancel a hold first (nothing was held)",
  ],
  hold_share_exceeded: [
    "This hold would give this partner more than {value}% of a night's rooms of this type on hold: hold fewer rooms, or book them (nothing was held)",
  ],
  hold_too_far_ahead: [
    "A stay more than {noHoldAfterDays} days ahead cannot be held: book it without bookCriteria.hold (nothing was booked)",
  ],
  booking_not_held: ["Booking is not held. Current status: {status}"],
  booking_not_modifiable: [
    "Booking cannot be modified. Current status: {status}",
    "Booking cannot be modified: some of its rooms are cancelled. Cancel the rest and book again",
    "Booking cannot be modified on or after its check-in date",
  ],
  modification_not_supported: [
    "This booking's supplier does not take changes: cancel it and book the new stay (nothing was changed)",
  ],
  modification_preview_not_found: ["No preview {previewId} of booking {bookingReference}"],
  modification_preview_expired: ["The preview expired at {expiresAt}: preview the change again"],
  modification_outdated: ["{what changed} since the preview: preview the change again"],

  session_not_found: ["session_not_found"],
  actor_mismatch: ["This session belongs to another actor; start a session for this actor instead."],
  invalid_session_state: ["{kind} is not possible now: the session is at status {status}"],
  session_erased: ["This session's personal data was erased on request; it takes no more events. Start a new session."],
  option_not_in_shortlist: [
    "optionId is not in this session's shortlist; use command_book_by_option_id for an option from POST /api/search",
  ],
  payment_method_not_found: ["paymentMethodId is not a card saved for this actor"],
  booking_not_in_session: ["bookingId was not booked in this session"],

  idempotency_key_reused: ["{header} was already used with a different request"],
  idempotency_key_in_use: ["A request with this {header} is still being processed; retry shortly"],
  rate_limit_exceeded: ["Rate limit exceeded"],
  login_locked: ["Too many failed login attempts; try again later"],
  login_slowed: ["Too many failed login attempts; try again later"],

  not_found: ["Route not found: {method} {path}"],
  method_not_allowed: ["Method not allowed: {method} {path}"],
  not_implemented: ["Not implemented here"],

  supplier_error: ["The supplier answered with an error"],
  supplier_unavailable: ["The supplier is unavailable; retry later"],
  supplier_timeout: ["The supplier did not answer in time"],
  currency_not_convertible: [
    "The supplier prices this option in {currency}; there is no exchange rate from {currency} to {requested}",
  ],

  misconfigured: ["Service misconfigured"],
  internal_error: ["Internal server error"],
} as const satisfies Record<ErrorCode, readonly [string, ...string[]]>;

const PLACEHOLDER = /\{[^}]+\}/g;
const messagePatterns = new Map<string, RegExp[]>();

/** Whether `message` is one of the messages the table lists for `code` (a `{name}` matches any text). */
export const isListedMessage = (code: ErrorCode, message: string) => {
  let patterns = messagePatterns.get(code);
  if (!patterns) {
    patterns = errorMessages[code].map((form) => {
      const literal = form.split(PLACEHOLDER).map((part) => part.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&"));
      return new RegExp(`^${literal.join("[\\s\\S]+?")}$`);
    });
    messagePatterns.set(code, patterns);
  }
  return patterns.some((pattern) => pattern.test(message));
};
