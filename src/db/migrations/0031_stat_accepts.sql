CREATE TABLE `stat_accepts` (
	`team_id` text NOT NULL,
	`day` integer NOT NULL,
	`project_id` text NOT NULL,
	`route_id` text NOT NULL,
	`message_type` text NOT NULL,
	`sending_domain` text NOT NULL,
	`provider` text NOT NULL,
	`tag` text NOT NULL,
	`slot` integer NOT NULL,
	`accepted` integer DEFAULT 0 NOT NULL,
	`recipients` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`team_id`, `day`, `project_id`, `route_id`, `message_type`, `sending_domain`, `provider`, `tag`, `slot`)
);
--> statement-breakpoint
ALTER TABLE `stat_days` DROP COLUMN `accepted`;--> statement-breakpoint
ALTER TABLE `stat_days` DROP COLUMN `recipients`;--> statement-breakpoint
ALTER TABLE `stat_hours` DROP COLUMN `accepted`;--> statement-breakpoint
ALTER TABLE `stat_hours` DROP COLUMN `recipients`;