ALTER TABLE `messages` ADD `redacted_at` integer;--> statement-breakpoint
ALTER TABLE `routes` ADD `generate_plaintext_fallback` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `routes` ADD `suppress_auto_responders` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `routes` ADD `suppress_disposable_recipients` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `routes` ADD `tls` text DEFAULT 'opportunistic' NOT NULL;--> statement-breakpoint
ALTER TABLE `routes` ADD `redact_email_content` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `routes` ADD `disable_hosted_unsubscribe` integer DEFAULT false NOT NULL;