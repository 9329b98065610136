ALTER TABLE `bookings` ADD `quote_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_quote` ON `bookings` (`quote_id`);