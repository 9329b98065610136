-- Issue 39: suppliers become operator data. Creates `suppliers` (with the built-in `embedded` row)
-- and `connection_suppliers`, gives connections a selling `currency`, and moves every
-- connection_upstreams row into them before dropping it:
-- - each upstream becomes a `hotelx` supplier coded `hotelx-<connection code>` whose settings are
--   the row's columns (`hotelCodes: "identity"`: it is asked for our codes, as before; prices in
--   EUR, the currency Hotel-X upstreams were asked in); its sealed credentials are copied as they
--   are and stay bound to the connection id they were sealed under (`seal_binding`), since SQL
--   cannot re-seal;
-- - the connection sells [embedded, it] with with_embedded, else [it], and keeps EUR as its selling
--   currency (its answers were in EUR); every other connection sells [embedded] (no row) in USD;
-- - bookings name their supplier by its new code: `inventory` -> `embedded`,
--   `hotelx-<connection id>` -> `hotelx-<connection code>`.
CREATE TABLE `connection_suppliers` (
	`connection_id` text NOT NULL,
	`supplier_code` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`connection_id`, `supplier_code`),
	FOREIGN KEY (`connection_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `connection_suppliers_supplier` ON `connection_suppliers` (`supplier_code`);--> statement-breakpoint
CREATE TABLE `suppliers` (
	`code` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`settings` text DEFAULT '{}' NOT NULL,
	`sealed_credentials` text,
	`seal_binding` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
ALTER TABLE `connections` ADD `currency` text DEFAULT 'USD' NOT NULL;--> statement-breakpoint
INSERT INTO `suppliers` (`code`, `kind`, `name`, `settings`, `seal_binding`) VALUES ('embedded', 'embedded', 'Edgestay inventory', '{}', 'embedded');--> statement-breakpoint
INSERT INTO `suppliers` (`code`, `kind`, `name`, `settings`, `sealed_credentials`, `seal_binding`, `created_at`, `updated_at`)
SELECT 'hotelx-' || c.`code`, 'hotelx', 'Hotel-X upstream of connection ' || c.`code`,
	json_object('url', u.`url`, 'client', u.`client`, 'context', u.`context`, 'currency', 'EUR', 'hotelCodes', 'identity',
		'twoStepBooking', json(CASE WHEN u.`two_step_booking` THEN 'true' ELSE 'false' END)),
	u.`sealed_credentials`, u.`connection_id`, u.`created_at`, u.`updated_at`
FROM `connection_upstreams` u JOIN `connections` c ON c.`id` = u.`connection_id`;--> statement-breakpoint
INSERT INTO `connection_suppliers` (`connection_id`, `supplier_code`, `position`)
SELECT `connection_id`, 'embedded', 0 FROM `connection_upstreams` WHERE `with_embedded`;--> statement-breakpoint
INSERT INTO `connection_suppliers` (`connection_id`, `supplier_code`, `position`)
SELECT u.`connection_id`, 'hotelx-' || c.`code`, CASE WHEN u.`with_embedded` THEN 1 ELSE 0 END
FROM `connection_upstreams` u JOIN `connections` c ON c.`id` = u.`connection_id`;--> statement-breakpoint
UPDATE `connections` SET `currency` = 'EUR' WHERE `id` IN (SELECT `connection_id` FROM `connection_upstreams`);--> statement-breakpoint
UPDATE `bookings` SET `supplier` = 'embedded' WHERE `supplier` = 'inventory';--> statement-breakpoint
UPDATE `bookings` SET `supplier` = (SELECT 'hotelx-' || c.`code` FROM `connections` c WHERE 'hotelx-' || c.`id` = `bookings`.`supplier`)
WHERE `supplier` IN (SELECT 'hotelx-' || `connection_id` FROM `connection_upstreams`);--> statement-breakpoint
DROP TABLE `connection_upstreams`;
