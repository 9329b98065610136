DROP INDEX `radar_checks_visitor`;--> statement-breakpoint
ALTER TABLE `radar_checks` ADD `device_key` text;--> statement-breakpoint
CREATE INDEX `radar_checks_device` ON `radar_checks` (`partner_id`,`device_key`,`checked_at_ms`);--> statement-breakpoint
DROP INDEX `radar_signals_partner_session`;--> statement-breakpoint
CREATE INDEX `radar_signals_partner_session` ON `radar_signals` (`partner_id`,`session_id`,`received_at`);--> statement-breakpoint
ALTER TABLE `radar_settings` ADD `allowed_origins` text;