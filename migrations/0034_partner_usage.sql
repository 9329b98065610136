CREATE TABLE `connection_usage` (
	`connection_id` text NOT NULL,
	`partner_id` text NOT NULL,
	`date` text NOT NULL,
	`operation` text NOT NULL,
	`outcome` text NOT NULL,
	`count` integer NOT NULL,
	`supplier_timeouts` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`connection_id`, `date`, `operation`, `outcome`)
);
--> statement-breakpoint
CREATE INDEX `connection_usage_partner_date` ON `connection_usage` (`partner_id`,`date`);--> statement-breakpoint
CREATE TABLE `connection_usage_rollups` (
	`connection_id` text NOT NULL,
	`seq` integer NOT NULL,
	PRIMARY KEY(`connection_id`, `seq`)
);
--> statement-breakpoint
CREATE INDEX `webhook_events_partner_booking` ON `webhook_events` (`partner_id`,`booking_reference`,`sequence`);