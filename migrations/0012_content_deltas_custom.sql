-- Content deltas: accommodations.updated_at is stamped by the database on every write path, on D1's
-- clock (one clock for every location). An explicit updated_at in the write is kept.
CREATE TRIGGER `accommodations_updated_ai` AFTER INSERT ON `accommodations`
WHEN new.updated_at = '1970-01-01T00:00:00.000Z' BEGIN
  UPDATE accommodations SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE rowid = new.rowid;
END;
--> statement-breakpoint
-- Only a real change bumps it: an update that writes the same document is not a delta.
CREATE TRIGGER `accommodations_updated_au`
AFTER UPDATE OF content, name, type, country, state, city, latitude, longitude, star_rating, timezone ON `accommodations`
WHEN new.updated_at IS old.updated_at AND (
  new.content IS NOT old.content OR new.name IS NOT old.name OR new.type IS NOT old.type OR new.country IS NOT old.country
  OR new.state IS NOT old.state OR new.city IS NOT old.city OR new.latitude IS NOT old.latitude
  OR new.longitude IS NOT old.longitude OR new.star_rating IS NOT old.star_rating OR new.timezone IS NOT old.timezone
) BEGIN
  UPDATE accommodations SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE rowid = new.rowid;
END;
