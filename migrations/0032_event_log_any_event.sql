-- webhook_events.booking_reference becomes nullable (an event about no booking); `type` stays plain text, no list of names.
-- SQLite cannot drop a NOT NULL in place, so the table is rebuilt, every row, index and the per-partner
-- sequence's uniqueness kept. D1 keeps foreign keys on inside a migration (PRAGMA foreign_keys=OFF does
-- nothing in its transaction) and DROP TABLE first deletes the rows, which would cascade to every
-- webhook delivery: webhook_deliveries is rebuilt alongside, pointing at the new table, and dropped first,
-- so the old table has nothing left that refers to it. The renames carry the reference over.
CREATE TABLE `__new_webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`sequence` integer DEFAULT 0 NOT NULL,
	`type` text NOT NULL,
	`booking_reference` text,
	`partner_reference` text DEFAULT '' NOT NULL,
	`body` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_webhook_events`("id", "partner_id", "sequence", "type", "booking_reference", "partner_reference", "body", "created_at") SELECT "id", "partner_id", "sequence", "type", "booking_reference", "partner_reference", "body", "created_at" FROM `webhook_events`;--> statement-breakpoint
CREATE TABLE `__new_webhook_deliveries` (
	`endpoint_id` text NOT NULL,
	`event_id` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_status_code` integer,
	`last_error` text,
	`last_attempt_at` text,
	`next_attempt_at` text,
	`enqueued_at` text,
	`delivered_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`endpoint_id`, `event_id`),
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `__new_webhook_events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_webhook_deliveries`("endpoint_id", "event_id", "status", "attempts", "last_status_code", "last_error", "last_attempt_at", "next_attempt_at", "enqueued_at", "delivered_at", "created_at") SELECT "endpoint_id", "event_id", "status", "attempts", "last_status_code", "last_error", "last_attempt_at", "next_attempt_at", "enqueued_at", "delivered_at", "created_at" FROM `webhook_deliveries`;--> statement-breakpoint
DROP TABLE `webhook_deliveries`;--> statement-breakpoint
DROP TABLE `webhook_events`;--> statement-breakpoint
ALTER TABLE `__new_webhook_events` RENAME TO `webhook_events`;--> statement-breakpoint
ALTER TABLE `__new_webhook_deliveries` RENAME TO `webhook_deliveries`;--> statement-breakpoint
CREATE INDEX `webhook_events_partner` ON `webhook_events` (`partner_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_events_partner_sequence` ON `webhook_events` (`partner_id`,`sequence`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_page` ON `webhook_deliveries` (`endpoint_id`,`created_at`,`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_not_enqueued` ON `webhook_deliveries` (`next_attempt_at`) WHERE enqueued_at is null and status = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_id`);
