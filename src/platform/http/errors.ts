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
