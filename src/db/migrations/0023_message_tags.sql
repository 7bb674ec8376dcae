CREATE TABLE `message_tags` (
	`message_id` text NOT NULL,
	`team_id` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`message_id`, `name`),
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `message_tags_team_tag` ON `message_tags` (`team_id`,`name`,`value`,`created_at`,`message_id`);--> statement-breakpoint
ALTER TABLE `message_contents` ADD `tls` text DEFAULT 'opportunistic' NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `tags` text DEFAULT '[]' NOT NULL;