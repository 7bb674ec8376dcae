CREATE TABLE `dkim_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`domain_id` text NOT NULL,
	`record_id` text NOT NULL,
	`algorithm` text NOT NULL,
	`selector` text NOT NULL,
	`private_key` text NOT NULL,
	`public_key` text NOT NULL,
	`state` text NOT NULL,
	`keep_until` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`record_id`) REFERENCES `dns_records`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dkim_keys_domain` ON `dkim_keys` (`domain_id`);--> statement-breakpoint
CREATE INDEX `dkim_keys_record` ON `dkim_keys` (`record_id`);--> statement-breakpoint
CREATE INDEX `dkim_keys_keep_until` ON `dkim_keys` (`keep_until`);