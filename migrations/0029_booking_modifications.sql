CREATE TABLE `booking_modifications` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`booking_reference` text NOT NULL,
	`booking_version` integer NOT NULL,
	`expires_at` text NOT NULL,
	`body` text NOT NULL,
	`committed_at` text
);
--> statement-breakpoint
CREATE INDEX `booking_modifications_expires_at` ON `booking_modifications` (`expires_at`);--> statement-breakpoint
ALTER TABLE `bookings` ADD `modified_at` text;--> statement-breakpoint
ALTER TABLE `bookings` ADD `modification_fees` real DEFAULT 0 NOT NULL;