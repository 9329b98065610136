CREATE TABLE `bookings` (
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
	`room_count` integer NOT NULL,
	`board_code` text NOT NULL,
	`currency` text NOT NULL,
	`charge_total` real NOT NULL,
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
	`cancel_price` real,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`connection_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_partner_reference` ON `bookings` (`partner_id`,`partner_reference`);--> statement-breakpoint
CREATE INDEX `bookings_accommodation` ON `bookings` (`accommodation_code`,`check_in`);--> statement-breakpoint
CREATE TABLE `idempotency_records` (
	`partner_id` text NOT NULL,
	`operation` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`partner_id`, `operation`, `key`)
);
--> statement-breakpoint
CREATE TABLE `rate_plan_nights` (
	`accommodation_code` text NOT NULL,
	`rate_plan_code` text NOT NULL,
	`night` text NOT NULL,
	`stop_sell` integer DEFAULT false NOT NULL,
	`price` real,
	PRIMARY KEY(`accommodation_code`, `rate_plan_code`, `night`)
);
--> statement-breakpoint
CREATE TABLE `room_nights` (
	`accommodation_code` text NOT NULL,
	`room_code` text NOT NULL,
	`night` text NOT NULL,
	`allotment` integer NOT NULL,
	`sold` integer DEFAULT 0 NOT NULL,
	`stop_sell` integer DEFAULT false NOT NULL,
	`price` real,
	PRIMARY KEY(`accommodation_code`, `room_code`, `night`),
	CONSTRAINT "room_nights_sold_within_allotment" CHECK("room_nights"."sold" >= 0 AND "room_nights"."sold" <= "room_nights"."allotment"),
	CONSTRAINT "room_nights_allotment_non_negative" CHECK("room_nights"."allotment" >= 0)
);
