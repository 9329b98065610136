-- Nightly prices become whole minor units: room_nights.price and rate_plan_nights.price (REAL, USD:
-- the embedded inventory prices every accommodation in USD) become price_minor (INTEGER, cents),
-- filled exactly, half away from zero: price x 100 read to 15 significant digits is the decimal the
-- operator sent (199.995, stored as 199.99499999..., gives 19999.5), which ROUND takes half away
-- from zero (20000); NULL (the derived price) stays NULL. Tables rebuilt (SQLite cannot change a
-- column's type) with their primary keys and CHECKs.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_rate_plan_nights` (
	`accommodation_code` text NOT NULL,
	`rate_plan_code` text NOT NULL,
	`night` text NOT NULL,
	`stop_sell` integer DEFAULT false NOT NULL,
	`price_minor` integer,
	PRIMARY KEY(`accommodation_code`, `rate_plan_code`, `night`)
);
--> statement-breakpoint
INSERT INTO `__new_rate_plan_nights`("accommodation_code", "rate_plan_code", "night", "stop_sell", "price_minor") SELECT "accommodation_code", "rate_plan_code", "night", "stop_sell", CASE WHEN "price" IS NULL THEN NULL ELSE CAST(ROUND(CAST(printf('%.15g', "price" * 100) AS REAL)) AS INTEGER) END FROM `rate_plan_nights`;--> statement-breakpoint
DROP TABLE `rate_plan_nights`;--> statement-breakpoint
ALTER TABLE `__new_rate_plan_nights` RENAME TO `rate_plan_nights`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_room_nights` (
	`accommodation_code` text NOT NULL,
	`room_code` text NOT NULL,
	`night` text NOT NULL,
	`allotment` integer NOT NULL,
	`sold` integer DEFAULT 0 NOT NULL,
	`stop_sell` integer DEFAULT false NOT NULL,
	`price_minor` integer,
	PRIMARY KEY(`accommodation_code`, `room_code`, `night`),
	CONSTRAINT "room_nights_sold_within_allotment" CHECK("__new_room_nights"."sold" >= 0 AND "__new_room_nights"."sold" <= "__new_room_nights"."allotment"),
	CONSTRAINT "room_nights_allotment_non_negative" CHECK("__new_room_nights"."allotment" >= 0)
);
--> statement-breakpoint
INSERT INTO `__new_room_nights`("accommodation_code", "room_code", "night", "allotment", "sold", "stop_sell", "price_minor") SELECT "accommodation_code", "room_code", "night", "allotment", "sold", "stop_sell", CASE WHEN "price" IS NULL THEN NULL ELSE CAST(ROUND(CAST(printf('%.15g', "price" * 100) AS REAL)) AS INTEGER) END FROM `room_nights`;--> statement-breakpoint
DROP TABLE `room_nights`;--> statement-breakpoint
ALTER TABLE `__new_room_nights` RENAME TO `room_nights`;