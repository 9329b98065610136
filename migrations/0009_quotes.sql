CREATE TABLE `quotes` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `quotes_expires_at` ON `quotes` (`expires_at`);