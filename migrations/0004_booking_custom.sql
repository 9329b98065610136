-- Name search indexes over accommodations.name (external content: the text stays in accommodations).
-- Trigram: case-insensitive substring match for queries of 3+ characters.
CREATE VIRTUAL TABLE `accommodation_name_trigrams` USING fts5(name, content='accommodations', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
-- Word prefixes: 2-character queries (too short for a trigram) match the start of a word.
CREATE VIRTUAL TABLE `accommodation_name_words` USING fts5(name, content='accommodations', content_rowid='rowid', tokenize='unicode61', prefix='2');
--> statement-breakpoint
CREATE TRIGGER `accommodations_names_ai` AFTER INSERT ON `accommodations` BEGIN
  INSERT INTO accommodation_name_trigrams(rowid, name) VALUES (new.rowid, new.name);
  INSERT INTO accommodation_name_words(rowid, name) VALUES (new.rowid, new.name);
END;
--> statement-breakpoint
CREATE TRIGGER `accommodations_names_ad` AFTER DELETE ON `accommodations` BEGIN
  INSERT INTO accommodation_name_trigrams(accommodation_name_trigrams, rowid, name) VALUES ('delete', old.rowid, old.name);
  INSERT INTO accommodation_name_words(accommodation_name_words, rowid, name) VALUES ('delete', old.rowid, old.name);
END;
--> statement-breakpoint
CREATE TRIGGER `accommodations_names_au` AFTER UPDATE OF name ON `accommodations` BEGIN
  INSERT INTO accommodation_name_trigrams(accommodation_name_trigrams, rowid, name) VALUES ('delete', old.rowid, old.name);
  INSERT INTO accommodation_name_words(accommodation_name_words, rowid, name) VALUES ('delete', old.rowid, old.name);
  INSERT INTO accommodation_name_trigrams(rowid, name) VALUES (new.rowid, new.name);
  INSERT INTO accommodation_name_words(rowid, name) VALUES (new.rowid, new.name);
END;
--> statement-breakpoint
INSERT INTO accommodation_name_trigrams(accommodation_name_trigrams) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO accommodation_name_words(accommodation_name_words) VALUES ('rebuild');
