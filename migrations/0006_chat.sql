CREATE TABLE `payment_methods` (
	`partner_id` text NOT NULL,
	`actor_id` text NOT NULL,
	`payment_method_id` text NOT NULL,
	`brand` text NOT NULL,
	`last4` text NOT NULL,
	`exp_month` integer NOT NULL,
	`exp_year` integer NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`partner_id`, `actor_id`, `payment_method_id`)
);
--> statement-breakpoint
CREATE TABLE `payment_setup_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`actor_id` text NOT NULL,
	`session_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `payment_setup_tokens_expiry` ON `payment_setup_tokens` (`expires_at`);