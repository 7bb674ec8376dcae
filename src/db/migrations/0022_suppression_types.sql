CREATE TABLE `global_suppressions` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`value` text NOT NULL,
	`reason` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `global_suppressions_value` ON `global_suppressions` (`value`,`type`);--> statement-breakpoint
DROP INDEX `suppressions_scope_email`;--> statement-breakpoint
ALTER TABLE `suppressions` ADD `type` text DEFAULT 'email' NOT NULL;--> statement-breakpoint
ALTER TABLE `suppressions` ADD `source_message_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `suppressions_scope_value` ON `suppressions` (`team_id`,`scope_key`,`email`,`type`);