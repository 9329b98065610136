CREATE TABLE `accommodations` (
	`code` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`country` text NOT NULL,
	`state` text NOT NULL,
	`city` text NOT NULL,
	`latitude` real NOT NULL,
	`longitude` real NOT NULL,
	`star_rating` real NOT NULL,
	`timezone` text NOT NULL,
	`content` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `accommodations_type_code` ON `accommodations` (`type`,`code`);--> statement-breakpoint
CREATE INDEX `accommodations_country_code` ON `accommodations` (`country`,`code`);--> statement-breakpoint
CREATE INDEX `accommodations_lat_lng` ON `accommodations` (`latitude`,`longitude`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`name` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_partner` ON `api_keys` (`partner_id`);--> statement-breakpoint
CREATE TABLE `connections` (
	`id` text PRIMARY KEY NOT NULL,
	`code` integer NOT NULL,
	`partner_id` text NOT NULL,
	`api_type` text NOT NULL,
	`connection_type` text NOT NULL,
	`rate_name` text,
	`rate_limit` integer NOT NULL,
	`rate_limit_window_ms` integer NOT NULL,
	`net_markups` real DEFAULT 0 NOT NULL,
	`current_in_use` integer DEFAULT false NOT NULL,
	`notification_email` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connections_code_unique` ON `connections` (`code`);--> statement-breakpoint
CREATE INDEX `connections_partner` ON `connections` (`partner_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `connections_one_in_use` ON `connections` (`partner_id`,`api_type`,`connection_type`) WHERE current_in_use = 1;--> statement-breakpoint
CREATE TABLE `partners` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`collector_key_hash` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `partners_collector_key_hash_unique` ON `partners` (`collector_key_hash`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`phone_number` text,
	`role` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_partner_email` ON `users` (`partner_id`,`email`);--> statement-breakpoint
CREATE INDEX `users_email` ON `users` (`email`);