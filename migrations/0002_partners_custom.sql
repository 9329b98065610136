-- Login identifies a user by e-mail alone, so an e-mail belongs to one user across all partners.
-- E-mails are stored lower-cased by the service; this index makes the rule hold under concurrency.
CREATE UNIQUE INDEX `users_email_login` ON `users` (`email`);
