CREATE TABLE `dmarc_report_records` (
	`id` text PRIMARY KEY NOT NULL,
	`report_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`day` text NOT NULL,
	`org_name` text NOT NULL,
	`source_ip` text NOT NULL,
	`count` integer NOT NULL,
	`disposition` text NOT NULL,
	`dkim` text NOT NULL,
	`spf` text NOT NULL,
	`header_from` text NOT NULL,
	`envelope_from` text,
	`dkim_results` text NOT NULL,
	`spf_results` text NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `dmarc_reports`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dmarc_report_records_domain_day` ON `dmarc_report_records` (`domain_id`,`day`);--> statement-breakpoint
CREATE INDEX `dmarc_report_records_report` ON `dmarc_report_records` (`report_id`);--> statement-breakpoint
CREATE TABLE `dmarc_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`org_name` text NOT NULL,
	`report_id` text NOT NULL,
	`reporter_email` text,
	`begin_at` integer NOT NULL,
	`end_at` integer NOT NULL,
	`day` text NOT NULL,
	`policy` text NOT NULL,
	`messages` integer NOT NULL,
	`received_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dmarc_reports_unique` ON `dmarc_reports` (`domain_id`,`org_name`,`report_id`);--> statement-breakpoint
CREATE INDEX `dmarc_reports_domain_day` ON `dmarc_reports` (`domain_id`,`day`);--> statement-breakpoint
CREATE TABLE `sending_addresses` (
	`ip` text PRIMARY KEY NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tlsrpt_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`org_name` text NOT NULL,
	`report_id` text NOT NULL,
	`contact` text,
	`begin_at` integer NOT NULL,
	`end_at` integer NOT NULL,
	`day` text NOT NULL,
	`received_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tlsrpt_reports_unique` ON `tlsrpt_reports` (`domain_id`,`org_name`,`report_id`);--> statement-breakpoint
CREATE INDEX `tlsrpt_reports_domain_day` ON `tlsrpt_reports` (`domain_id`,`day`);--> statement-breakpoint
CREATE TABLE `tlsrpt_results` (
	`id` text PRIMARY KEY NOT NULL,
	`report_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`day` text NOT NULL,
	`org_name` text NOT NULL,
	`policy_type` text NOT NULL,
	`policy_domain` text NOT NULL,
	`mx_host` text NOT NULL,
	`result_type` text NOT NULL,
	`sending_ip` text,
	`receiving_ip` text,
	`count` integer NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `tlsrpt_reports`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tlsrpt_results_domain_day` ON `tlsrpt_results` (`domain_id`,`day`);--> statement-breakpoint
CREATE INDEX `tlsrpt_results_report` ON `tlsrpt_results` (`report_id`);