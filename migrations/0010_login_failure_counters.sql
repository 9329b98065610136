CREATE TABLE `login_failure_counters` (
	`email` text NOT NULL,
	`scope` text NOT NULL,
	`failures` integer NOT NULL,
	`window_started_at` integer NOT NULL,
	`locked_until` integer,
	`attempt_id` text NOT NULL,
	PRIMARY KEY(`email`, `scope`)
);
