CREATE TABLE `idempotency_keys` (
	`scope` text NOT NULL,
	`partner_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`state` text NOT NULL,
	`token` text NOT NULL,
	`locked_until_ms` integer NOT NULL,
	`status` integer,
	`answer` text,
	`expires_at_ms` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`scope`, `partner_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expires` ON `idempotency_keys` (`expires_at_ms`);