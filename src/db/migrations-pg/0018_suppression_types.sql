CREATE TABLE "global_suppressions" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"type" text COLLATE "C" NOT NULL,
	"value" text COLLATE "C" NOT NULL,
	"reason" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
DROP INDEX "suppressions_scope_email";--> statement-breakpoint
ALTER TABLE "suppressions" ADD COLUMN "type" text COLLATE "C" DEFAULT 'email' NOT NULL;--> statement-breakpoint
ALTER TABLE "suppressions" ADD COLUMN "source_message_id" text COLLATE "C";--> statement-breakpoint
CREATE UNIQUE INDEX "global_suppressions_value" ON "global_suppressions" USING btree ("value","type");--> statement-breakpoint
CREATE UNIQUE INDEX "suppressions_scope_value" ON "suppressions" USING btree ("team_id","scope_key","email","type");