CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text,
	`actor_name` text,
	`operation` text NOT NULL,
	`target_ids` text NOT NULL,
	`changes` text NOT NULL,
	`status` integer NOT NULL,
	`ip` text,
	`user_agent` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_team_created` ON `audit_log` (`team_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_log_created` ON `audit_log` (`created_at`);