CREATE TABLE `tracked_links` (
	`message_id` text NOT NULL,
	`link_index` integer NOT NULL,
	`url` text NOT NULL,
	PRIMARY KEY(`message_id`, `link_index`),
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `tracking_hits` (
	`id` text PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`recipient_id` text NOT NULL,
	`kind` text NOT NULL,
	`link_index` integer,
	`ip` text,
	`user_agent` text,
	`machine` integer NOT NULL,
	`machine_reason` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`recipient_id`) REFERENCES `recipients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tracking_hits_recipient` ON `tracking_hits` (`recipient_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `tracking_hits_message` ON `tracking_hits` (`message_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `message_contents` ADD `track_opens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `message_contents` ADD `track_clicks` integer DEFAULT 0 NOT NULL;