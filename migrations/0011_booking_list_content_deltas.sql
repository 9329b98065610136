ALTER TABLE `accommodations` ADD `updated_at` text DEFAULT '1970-01-01T00:00:00.000Z' NOT NULL;--> statement-breakpoint
CREATE INDEX `accommodations_updated` ON `accommodations` (`updated_at`,`code`);--> statement-breakpoint
CREATE INDEX `bookings_partner_created` ON `bookings` (`partner_id`,`created_at`,`reference`);