/**
 * The GraphQL documents sent to Hotel-X. Inputs travel as variables, never interpolated, so a
 * partner's text can never change the document.
 */
const ISSUES = "errors { code type description } warnings { code type description }";
/** What pricing reads of a Price (wire.ts `amountSchema`). */
const AMOUNT = "currency net";
const PRICE = "currency binding net gross exchange { currency rate }";
const PRICE_CHANGE = "currency net gross binding";
const SURCHARGES = `surcharges { code chargeType mandatory description price { ${AMOUNT} } }`;
const CANCEL_POLICY = "refundable cancelPenalties { deadline hoursBefore penaltyType currency value }";
const REFERENCE = "client supplier hotel bookingID";
const BOOKING = `reference { ${REFERENCE} } status price { ${PRICE} } quotePrice { ${PRICE_CHANGE} } cancelPolicy { ${CANCEL_POLICY} } hotel { hotelCode hotelName start end } remarks`;

/**
 * Only what the search reads of an option (wire.ts `optionSchema`): a supplier answers hundreds of
 * options, and each field asked is sent (a Hotel-X supplier bills by data), parsed and validated per option.
 */
export const SEARCH = `query ($criteria: HotelCriteriaSearchInput!, $settings: HotelSettingsInput) {
  hotelX {
    search(criteria: $criteria, settings: $settings) {
      options {
        id accessCode hotelCode boardCode paymentType status
        rooms { occupancyRefId code description refundable }
        price { ${AMOUNT} }
        ${SURCHARGES}
        rateRules
        cancelPolicy { ${CANCEL_POLICY} }
      }
      ${ISSUES}
    }
  }
}`;

export const QUOTE = `query ($criteria: HotelCriteriaQuoteInput!, $settings: HotelSettingsInput) {
  hotelX {
    quote(criteria: $criteria, settings: $settings) {
      optionQuote {
        optionRefId status price { ${PRICE} } searchPrice { ${PRICE_CHANGE} } cancelPolicy { ${CANCEL_POLICY} } remarks paymentType
        ${SURCHARGES}
        rooms { occupancyRefId code description }
      }
      ${ISSUES}
    }
  }
}`;

export const BOOK = `mutation ($input: HotelBookInput!, $settings: HotelSettingsInput) {
  hotelX {
    book(input: $input, settings: $settings) {
      booking { ${BOOKING} }
      ${ISSUES}
    }
  }
}`;

export const CANCEL = `mutation ($input: HotelCancelInput!, $settings: HotelSettingsInput) {
  hotelX {
    cancel(input: $input, settings: $settings) {
      cancellation { reference { ${REFERENCE} } cancelReference status price { ${PRICE} } }
      ${ISSUES}
    }
  }
}`;

export const COMMIT = `mutation ($input: HotelCommitInput!, $settings: HotelSettingsInput) {
  hotelX {
    commit(input: $input, settings: $settings) {
      commitDetails { reference { ${REFERENCE} } status }
      ${ISSUES}
    }
  }
}`;

export const BOOKING_READ = `query ($criteria: HotelCriteriaBookingInput!, $settings: HotelSettingsInput) {
  hotelX {
    booking(criteria: $criteria, settings: $settings) {
      bookings { ${BOOKING} }
      ${ISSUES}
    }
  }
}`;

/**
 * Hotel-X's `hotels` content query (`hotelx/hotstc`): one page of the access's hotel list, the next
 * asked with the `token` the last one answered. What `suggest` with `fromSupplier` reads.
 */
export const HOTEL_LIST = `query ($criteria: HotelXHotelListInput!, $relay: RelayInput!, $token: String) {
  hotelX {
    hotels(criteria: $criteria, relay: $relay, token: $token) {
      count token
      edges { node { hotelData { hotelCode hotelName location { address city zipCode country coordinates { latitude longitude } } } } }
    }
  }
}`;
