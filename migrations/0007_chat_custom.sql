-- Chat resolves a destination phrase to a city case-insensitively: index the lookup.
CREATE INDEX IF NOT EXISTS `accommodations_city_nocase` ON `accommodations` (`city` COLLATE NOCASE);
