CREATE TABLE `radar_checks` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`session_id` text NOT NULL,
	`idempotency_key` text,
	`trigger_event` text NOT NULL,
	`decision` text NOT NULL,
	`radar_result` text NOT NULL,
	`score` integer NOT NULL,
	`reasons` text NOT NULL,
	`should_hide_rate` integer NOT NULL,
	`billable` integer NOT NULL,
	`input_digest` text NOT NULL,
	`inputs` text NOT NULL,
	`visitor_id` text,
	`email_hash` text,
	`ip_hash` text,
	`checked_at` text NOT NULL,
	`checked_at_ms` integer NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `radar_checks_idempotency` ON `radar_checks` (`partner_id`,`idempotency_key`) WHERE idempotency_key is not null;--> statement-breakpoint
CREATE INDEX `radar_checks_visitor` ON `radar_checks` (`partner_id`,`visitor_id`,`checked_at_ms`);--> statement-breakpoint
CREATE INDEX `radar_checks_email` ON `radar_checks` (`partner_id`,`email_hash`,`checked_at_ms`);--> statement-breakpoint
CREATE INDEX `radar_checks_ip` ON `radar_checks` (`partner_id`,`ip_hash`,`checked_at_ms`);--> statement-breakpoint
CREATE TABLE `radar_settings` (
	`partner_id` text PRIMARY KEY NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `radar_signals` (
	`partner_id` text NOT NULL,
	`session_id` text NOT NULL,
	`signals` text NOT NULL,
	`ip_country` text,
	`ip_hash` text,
	`received_at` text NOT NULL,
	`expires_at_ms` integer NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `radar_signals_partner_session` ON `radar_signals` (`partner_id`,`session_id`);--> statement-breakpoint
CREATE INDEX `radar_signals_expires` ON `radar_signals` (`expires_at_ms`);