DROP INDEX `accommodations_lat_lng`;--> statement-breakpoint
CREATE INDEX `accommodations_geo` ON `accommodations` (`latitude`,`longitude`,`code`,`name`,`type`,`country`,`star_rating`,`timezone`);