import { ApiError } from "../../../platform/http/api-error";
import type { SupplierHotel } from "../hotel-matching/matcher";
import { defaultSupplierTimeoutMs } from "../supplier-deadline";
import * as hotelx from "./client";
import { upstreamFetch } from "./upstream-fetch";

/** Hotels asked per page of the `hotels` query: few round trips for a whole list under one deadline. */
export const HOTEL_LIST_PAGE = 5_000;

export type HotelListSource = {
  code: string;
  url: string;
  client: string;
  context: string;
  apiKey: string;
  timeoutMs?: number;
};

/**
 * A Hotel-X supplier's whole hotel list, paged through its `hotels` content query, as the matcher
 * takes it. The whole read shares one deadline (the supplier's `timeout`, else the default): late
 * is 504 `supplier_timeout`, an unusable answer 502 `supplier_error`. A list longer than
 * `maxHotels` is refused (400) as soon as its `count` says so, never cut short; a hotel without
 * coordinates cannot be matched and is left out.
 */
export const readHotelList = async (
  env: { ENVIRONMENT?: string },
  source: HotelListSource,
  limits: { maxHotels: number; pageSize?: number },
): Promise<SupplierHotel[]> => {
  const access: hotelx.HotelxAccess = { ...source, fetch: upstreamFetch(env, source.url) };
  const deadlineMs = source.timeoutMs ?? defaultSupplierTimeoutMs(env);
  const signal = AbortSignal.timeout(deadlineMs);
  const started = Date.now();
  const hotels: SupplierHotel[] = [];
  let token: string | null = null;
  try {
    do {
      const page: hotelx.HotelListPage = await hotelx.hotelList(
        access,
        { maxSize: limits.pageSize ?? HOTEL_LIST_PAGE, token },
        { deadlineMs: Math.max(1, deadlineMs - (Date.now() - started)), signal },
      );
      if (page.count > limits.maxHotels || hotels.length + page.hotels.length > limits.maxHotels)
        throw new ApiError(
          "invalid_request",
          `fromSupplier: supplier ${source.code} lists ${Math.max(page.count, hotels.length + page.hotels.length)} hotels, more than the ${limits.maxHotels} one call takes; send them in hotels, in parts`,
          { field: "fromSupplier" },
        );
      for (const hotel of page.hotels) {
        const at = hotel.location?.coordinates;
        if (!at) continue;
        const where = hotel.location!;
        hotels.push({
          supplierHotelCode: hotel.hotelCode,
          name: hotel.hotelName || hotel.hotelCode,
          latitude: at.latitude,
          longitude: at.longitude,
          ...(where.address ? { address: where.address } : {}),
          ...(where.zipCode ? { postalCode: where.zipCode } : {}),
          ...(where.city ? { city: where.city } : {}),
          ...(where.country ? { countryCode: where.country } : {}),
        });
      }
      // An empty page ends the list whatever its token says (a loop would only end at the deadline).
      token = page.hotels.length > 0 ? page.token : null;
    } while (token !== null);
  } catch (err) {
    if (!(err instanceof hotelx.SupplierCallError)) throw err;
    throw err.code === "supplier_timeout"
      ? new ApiError("supplier_timeout", "The supplier did not answer in time", { supplier: source.code })
      : new ApiError("supplier_error", "The supplier answered with an error", { supplier: source.code });
  }
  return hotels;
};
