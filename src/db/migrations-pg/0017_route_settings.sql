ALTER TABLE "messages" ADD COLUMN "redacted_at" bigint;--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "generate_plaintext_fallback" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "suppress_auto_responders" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "suppress_disposable_recipients" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "tls" text COLLATE "C" DEFAULT 'opportunistic' NOT NULL;--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "redact_email_content" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "disable_hosted_unsubscribe" integer DEFAULT 0 NOT NULL;