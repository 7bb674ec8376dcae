CREATE TABLE `destinations` (
	`name` text PRIMARY KEY NOT NULL,
	`domains` text NOT NULL,
	`concurrency` integer,
	`per_minute` integer,
	`paused_until` integer,
	`strikes` integer DEFAULT 0 NOT NULL,
	`last_reply` text,
	`throttled_at` integer,
	`updated_by` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `destinations_updated` ON `destinations` (`updated_at`);