CREATE TABLE `acme_challenges` (
	`token` text PRIMARY KEY NOT NULL,
	`key_authorization` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `acme_challenges_expires` ON `acme_challenges` (`expires_at`);--> statement-breakpoint
CREATE TABLE `tls_certificates` (
	`name` text PRIMARY KEY NOT NULL,
	`domains` text,
	`cert_pem` text,
	`key_pem` text,
	`fingerprint` text,
	`not_before` integer,
	`not_after` integer,
	`issued_at` integer,
	`renew_requested_at` integer,
	`failures` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`last_attempt_at` integer,
	`next_attempt_at` integer,
	`lease_owner` text,
	`lease_until` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
