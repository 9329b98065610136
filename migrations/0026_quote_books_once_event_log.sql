CREATE TABLE `partner_event_sequences` (
	`partner_id` text PRIMARY KEY NOT NULL,
	`last_sequence` integer NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `bookings` ADD `quote_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_quote` ON `bookings` (`quote_id`);--> statement-breakpoint
ALTER TABLE `webhook_events` ADD `sequence` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_events` ADD `partner_reference` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_id`);