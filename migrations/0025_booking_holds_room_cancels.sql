ALTER TABLE `bookings` ADD `hold_expires_at` text;--> statement-breakpoint
ALTER TABLE `bookings` ADD `version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX `bookings_held_until` ON `bookings` (`hold_expires_at`) WHERE status = 'held';--> statement-breakpoint
ALTER TABLE `connection_upstreams` ADD `two_step_booking` integer DEFAULT false NOT NULL;