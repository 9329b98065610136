CREATE TABLE `accommodation_fees` (
	`accommodation_code` text PRIMARY KEY NOT NULL,
	`schedule` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`accommodation_code`) REFERENCES `accommodations`(`code`) ON UPDATE no action ON DELETE no action
);
