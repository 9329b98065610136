DROP TABLE `idempotency_records`;--> statement-breakpoint
DROP INDEX `radar_checks_idempotency`;--> statement-breakpoint
CREATE INDEX `radar_checks_idempotency` ON `radar_checks` (`partner_id`,`idempotency_key`);