ALTER TABLE "domains" ADD COLUMN "dkim_ed25519_selector" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "dkim_ed25519_private_key" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "dkim_ed25519_public_key" text COLLATE "C";