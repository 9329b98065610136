ALTER TABLE `bookings` ADD `upstream_access_code` text;--> statement-breakpoint
ALTER TABLE `bookings` ADD `upstream_booking_id` text;