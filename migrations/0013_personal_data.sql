CREATE TABLE `chat_session_actors` (
	`session_id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`actor_id` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `chat_session_actors_actor` ON `chat_session_actors` (`partner_id`,`actor_id`);--> statement-breakpoint
ALTER TABLE `radar_checks` ADD `pii_removed_at` integer;--> statement-breakpoint
CREATE INDEX `radar_checks_email_any_partner` ON `radar_checks` (`email_hash`);--> statement-breakpoint
CREATE INDEX `radar_checks_pii_retention` ON `radar_checks` (`checked_at_ms`) WHERE pii_removed_at is null;