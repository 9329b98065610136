CREATE TABLE `exchange_rates` (
	`currency` text PRIMARY KEY NOT NULL,
	`per_base` real NOT NULL,
	`base` text NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
