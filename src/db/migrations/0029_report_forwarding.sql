CREATE TABLE `report_forwarding` (
	`project_id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`destination` text NOT NULL,
	`code_hash` text,
	`code_expires_at` integer,
	`code_sent_at` integer,
	`failed_attempts` integer DEFAULT 0 NOT NULL,
	`verified_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
