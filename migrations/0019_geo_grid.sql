DROP INDEX `accommodations_geo`;--> statement-breakpoint
ALTER TABLE `accommodations` ADD `geo_cell` integer;--> statement-breakpoint
CREATE INDEX `accommodations_geo_cell` ON `accommodations` (`geo_cell`,`latitude`,`longitude`,`code`,`name`,`type`,`country`,`star_rating`,`timezone`);