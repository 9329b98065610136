CREATE TABLE `hold_limits` (
	`id` integer PRIMARY KEY NOT NULL,
	`max_holds_per_partner` integer NOT NULL,
	`max_held_room_nights_per_partner` integer NOT NULL,
	`max_share_percent` integer NOT NULL,
	`short_hold_after_days` integer NOT NULL,
	`short_hold_max_minutes` integer NOT NULL,
	`no_hold_after_days` integer NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "hold_limits_one_row" CHECK("hold_limits"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE `partner_holds` (
	`partner_id` text PRIMARY KEY NOT NULL,
	`holds` integer DEFAULT 0 NOT NULL,
	`room_nights` integer DEFAULT 0 NOT NULL,
	`placed` integer DEFAULT 0 NOT NULL,
	`committed` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "partner_holds_count_within_limit" CHECK("partner_holds"."holds" >= 0),
	CONSTRAINT "partner_holds_room_nights_within_limit" CHECK("partner_holds"."room_nights" >= 0)
);
--> statement-breakpoint
CREATE TABLE `room_night_holds` (
	`partner_id` text NOT NULL,
	`accommodation_code` text NOT NULL,
	`room_code` text NOT NULL,
	`night` text NOT NULL,
	`held` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`partner_id`, `accommodation_code`, `room_code`, `night`),
	CONSTRAINT "room_night_holds_within_share" CHECK("room_night_holds"."held" >= 0)
);
