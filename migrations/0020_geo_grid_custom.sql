-- The geo grid cell of every accommodation (src/platform/db/geo-grid.ts: cells of 1/50 degree,
-- row * 18000 + column), kept by the database on every write path. The formula must stay the same
-- as gridRowOf/gridColumnOf; geo-grid.test.ts checks every stored cell against them.
CREATE TRIGGER `accommodations_geo_cell_ai` AFTER INSERT ON `accommodations` BEGIN
  UPDATE accommodations SET geo_cell =
    min(cast((new.latitude + 90) * 50 as integer), 8999) * 18000 + min(cast((new.longitude + 180) * 50 as integer), 17999)
  WHERE rowid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `accommodations_geo_cell_au` AFTER UPDATE OF latitude, longitude ON `accommodations` BEGIN
  UPDATE accommodations SET geo_cell =
    min(cast((new.latitude + 90) * 50 as integer), 8999) * 18000 + min(cast((new.longitude + 180) * 50 as integer), 17999)
  WHERE rowid = new.rowid;
END;
--> statement-breakpoint
UPDATE accommodations SET geo_cell =
  min(cast((latitude + 90) * 50 as integer), 8999) * 18000 + min(cast((longitude + 180) * 50 as integer), 17999);
