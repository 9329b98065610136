import { eq } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { feeScheduleOf, servedFees } from "./fee-schedule";
import { accommodationFees, accommodations } from "./tables";
import { ApiError } from "../../platform/http/api-error";
import { SUPPORTED_COUNTRIES, type AccommodationContent } from "./schemas";

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

const invalid = (message: string) => new ApiError("invalid_request", message);

/** The indexed columns search and content filter on, taken from the document so the two never disagree. */
const columnsOf = (doc: AccommodationContent) => {
  const [longitude, latitude] = doc.location;
  if (!(latitude >= -90 && latitude <= 90 && longitude >= -180 && longitude <= 180))
    throw invalid("location: expected [longitude, latitude] within range");
  if (!isTimeZone(doc.timezone)) throw invalid(`timezone: unknown IANA zone ${doc.timezone}`);
  const country = doc.address.country.toUpperCase();
  if (!(SUPPORTED_COUNTRIES as readonly string[]).includes(country)) {
    throw new ApiError("unsupported_country", `Unsupported country: ${country}. Currently only US is supported`);
  }
  const name = (
    doc.localizedName.find((n) => n.locale === "en-US") ??
    doc.localizedName.find((n) => n.language === "en") ??
    doc.localizedName[0]
  )?.content.trim();
  if (!name) throw invalid("localizedName: at least one name is required");
  return {
    name,
    type: doc.type,
    country,
    state: doc.address.state,
    city: doc.address.city,
    latitude,
    longitude,
    starRating: doc.starRating,
    timezone: doc.timezone,
  };
};

/**
 * Operator edit: replaces an accommodation's section 4.1 document (and the columns derived from it).
 * updated_at is not written here: the database trigger stamps it when something really changed, so
 * the document shows up in the next content delta.
 */
export const replaceAccommodationContent = async (db: Db, code: string, doc: AccommodationContent) => {
  if (doc.code !== code) throw invalid("code: must equal the accommodation code in the path");
  const columns = columnsOf(doc);
  const [, rows] = await db.batch([
    db
      .update(accommodations)
      .set({ ...columns, content: JSON.stringify(doc) })
      .where(eq(accommodations.code, code)),
    db
      .select({
        content: accommodations.content,
        updatedAt: accommodations.updatedAt,
        code: accommodations.code,
        type: accommodations.type,
        country: accommodations.country,
        fees: accommodationFees.schedule,
      })
      .from(accommodations)
      .leftJoin(accommodationFees, eq(accommodationFees.accommodationCode, accommodations.code))
      .where(eq(accommodations.code, code)),
  ]);
  const row = rows[0];
  if (!row) throw new ApiError("accommodation_not_found", "Accommodation not found");
  return {
    ...(JSON.parse(row.content) as AccommodationContent),
    fees: servedFees(feeScheduleOf(row, row.fees)),
    updatedAt: row.updatedAt,
  };
};
