-- The bookings' money columns become integer minor units of the booking's currency (issue 38):
-- charge_total, cancel_price and modification_fees, each the REAL amount times the currency's minor
-- units per major unit, rounded half away from zero (SQLite's ROUND, as platform/money.ts toMinor).
-- Digits as platform/money.ts minorUnitDigits answers them in workerd (its ICU data; a test holds the
-- lists to it): 0 for
-- AFN, ALL, BIF, CLP, DJF, GNF, IQD, IRR, ISK, JPY, KMF, KPW, KRW, LAK, LBP, MGA, MMK, PYG, RSD, RWF, SLL, SOS, SYP, UGX, VND, VUV, XAF, XOF, XPF, YER;
-- 3 for BHD, JOD, KWD, LYD, OMR, TND; 2 for every other currency.
-- SQLite cannot change a column's type: the table is rebuilt with every index and foreign key.
-- Nothing references bookings and it has no triggers. D1 ignores foreign_keys=OFF inside its
-- transaction; defer_foreign_keys keeps the checks to the end, where every row still holds.
PRAGMA defer_foreign_keys = on;--> statement-breakpoint
CREATE TABLE `__new_bookings` (
	`reference` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`connection_id` text NOT NULL,
	`partner_reference` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` text NOT NULL,
	`accommodation_code` text NOT NULL,
	`accommodation_name` text NOT NULL,
	`timezone` text NOT NULL,
	`check_in` text NOT NULL,
	`check_out` text NOT NULL,
	`room_code` text NOT NULL,
	`rate_plan_code` text NOT NULL,
	`upstream_option_id` text,
	`upstream_access_code` text,
	`upstream_booking_id` text,
	`room_count` integer NOT NULL,
	`board_code` text NOT NULL,
	`currency` text NOT NULL,
	`charge_total` integer NOT NULL,
	`payment_type` text DEFAULT 'MerchantPay' NOT NULL,
	`payment_card` text,
	`rate` text NOT NULL,
	`rooms` text NOT NULL,
	`cancel_policy` text,
	`holder` text NOT NULL,
	`occupancies` text NOT NULL,
	`supplier` text NOT NULL,
	`supplier_reference` text NOT NULL,
	`hotel_confirmation_number` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`cancelled_at` text,
	`cancel_price` integer,
	`hold_expires_at` text,
	`version` integer DEFAULT 1 NOT NULL,
	`quote_id` text,
	`modified_at` text,
	`modification_fees` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`connection_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_bookings`("reference", "partner_id", "connection_id", "partner_reference", "request_hash", "status", "accommodation_code", "accommodation_name", "timezone", "check_in", "check_out", "room_code", "rate_plan_code", "upstream_option_id", "upstream_access_code", "upstream_booking_id", "room_count", "board_code", "currency", "charge_total", "payment_type", "payment_card", "rate", "rooms", "cancel_policy", "holder", "occupancies", "supplier", "supplier_reference", "hotel_confirmation_number", "created_at", "cancelled_at", "cancel_price", "hold_expires_at", "version", "quote_id", "modified_at", "modification_fees") SELECT "reference", "partner_id", "connection_id", "partner_reference", "request_hash", "status", "accommodation_code", "accommodation_name", "timezone", "check_in", "check_out", "room_code", "rate_plan_code", "upstream_option_id", "upstream_access_code", "upstream_booking_id", "room_count", "board_code", "currency", CAST(ROUND("charge_total" * (CASE WHEN "currency" IN ('AFN', 'ALL', 'BIF', 'CLP', 'DJF', 'GNF', 'IQD', 'IRR', 'ISK', 'JPY', 'KMF', 'KPW', 'KRW', 'LAK', 'LBP', 'MGA', 'MMK', 'PYG', 'RSD', 'RWF', 'SLL', 'SOS', 'SYP', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF', 'YER') THEN 1 WHEN "currency" IN ('BHD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND') THEN 1000 ELSE 100 END)) AS INTEGER), "payment_type", "payment_card", "rate", "rooms", "cancel_policy", "holder", "occupancies", "supplier", "supplier_reference", "hotel_confirmation_number", "created_at", "cancelled_at", CAST(ROUND("cancel_price" * (CASE WHEN "currency" IN ('AFN', 'ALL', 'BIF', 'CLP', 'DJF', 'GNF', 'IQD', 'IRR', 'ISK', 'JPY', 'KMF', 'KPW', 'KRW', 'LAK', 'LBP', 'MGA', 'MMK', 'PYG', 'RSD', 'RWF', 'SLL', 'SOS', 'SYP', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF', 'YER') THEN 1 WHEN "currency" IN ('BHD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND') THEN 1000 ELSE 100 END)) AS INTEGER), "hold_expires_at", "version", "quote_id", "modified_at", CAST(ROUND("modification_fees" * (CASE WHEN "currency" IN ('AFN', 'ALL', 'BIF', 'CLP', 'DJF', 'GNF', 'IQD', 'IRR', 'ISK', 'JPY', 'KMF', 'KPW', 'KRW', 'LAK', 'LBP', 'MGA', 'MMK', 'PYG', 'RSD', 'RWF', 'SLL', 'SOS', 'SYP', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF', 'YER') THEN 1 WHEN "currency" IN ('BHD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND') THEN 1000 ELSE 100 END)) AS INTEGER) FROM `bookings`;--> statement-breakpoint
DROP TABLE `bookings`;--> statement-breakpoint
ALTER TABLE `__new_bookings` RENAME TO `bookings`;--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_partner_reference` ON `bookings` (`partner_id`,`partner_reference`);--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_quote` ON `bookings` (`quote_id`);--> statement-breakpoint
CREATE INDEX `bookings_accommodation` ON `bookings` (`accommodation_code`,`check_in`);--> statement-breakpoint
CREATE INDEX `bookings_partner_created` ON `bookings` (`partner_id`,`created_at`,`reference`);--> statement-breakpoint
CREATE INDEX `bookings_held_until` ON `bookings` (`hold_expires_at`) WHERE status = 'held';