CREATE TABLE `chat_session_actors` (
	`session_id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`actor_id` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `chat_session_actors_actor` ON `chat_session_actors` (`partner_id`,`actor_id`);--> statement-breakpoint
CREATE TABLE `login_failure_counters` (
	`email` text NOT NULL,
	`scope` text NOT NULL,
	`failures` integer NOT NULL,
	`window_started_at` integer NOT NULL,
	`locked_until` integer,
	`attempt_id` text NOT NULL,
	PRIMARY KEY(`email`, `scope`)
);
