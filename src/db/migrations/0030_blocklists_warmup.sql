CREATE TABLE `blocklist_status` (
	`target` text NOT NULL,
	`zone` text NOT NULL,
	`kind` text NOT NULL,
	`listed` integer NOT NULL,
	`code` text,
	`meaning` text,
	`since` integer NOT NULL,
	`checked_at` integer NOT NULL,
	PRIMARY KEY(`target`, `zone`)
);
--> statement-breakpoint
CREATE TABLE `domain_warmups` (
	`domain_id` text PRIMARY KEY NOT NULL,
	`enabled` integer NOT NULL,
	`schedule` text NOT NULL,
	`started_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `warmup_counts` (
	`domain_id` text NOT NULL,
	`day` text NOT NULL,
	`sent` integer NOT NULL,
	PRIMARY KEY(`domain_id`, `day`),
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
