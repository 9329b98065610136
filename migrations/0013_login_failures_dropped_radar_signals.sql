DROP TABLE `login_failures`;--> statement-breakpoint
DROP INDEX `radar_checks_visitor`;--> statement-breakpoint
ALTER TABLE `radar_checks` ADD `device_key` text;--> statement-breakpoint
ALTER TABLE `radar_checks` ADD `pii_removed_at` integer;--> statement-breakpoint
CREATE INDEX `radar_checks_device` ON `radar_checks` (`partner_id`,`device_key`,`checked_at_ms`);--> statement-breakpoint
CREATE INDEX `radar_checks_email_any_partner` ON `radar_checks` (`email_hash`);--> statement-breakpoint
CREATE INDEX `radar_checks_pii_retention` ON `radar_checks` (`checked_at_ms`) WHERE pii_removed_at is null;--> statement-breakpoint
DROP INDEX `radar_signals_partner_session`;--> statement-breakpoint
CREATE INDEX `radar_signals_partner_session` ON `radar_signals` (`partner_id`,`session_id`,`received_at`);--> statement-breakpoint
ALTER TABLE `payment_setup_tokens` ADD `replaced_at` integer;--> statement-breakpoint
ALTER TABLE `radar_settings` ADD `allowed_origins` text;