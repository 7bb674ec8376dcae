CREATE TABLE `team_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`role` text,
	`permissions` text,
	`project_ids` text,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	`rotated_at` integer NOT NULL,
	`last_used_at` integer,
	`last_used_ip` text,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_tokens_token_hash` ON `team_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `team_tokens_team` ON `team_tokens` (`team_id`,`created_at`);