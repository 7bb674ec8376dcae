CREATE TABLE `team_invitations` (
	`member_id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`member_id`) REFERENCES `team_members`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_invitations_token_hash` ON `team_invitations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `team_invitations_user` ON `team_invitations` (`user_id`);--> statement-breakpoint
ALTER TABLE `team_members` ADD `status` text DEFAULT 'active' NOT NULL;