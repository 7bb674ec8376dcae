CREATE TABLE "team_tokens" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"team_id" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"token_hash" text COLLATE "C" NOT NULL,
	"role" text COLLATE "C",
	"permissions" text COLLATE "C",
	"project_ids" text COLLATE "C",
	"expires_at" bigint,
	"created_at" bigint NOT NULL,
	"rotated_at" bigint NOT NULL,
	"last_used_at" bigint,
	"last_used_ip" text COLLATE "C"
);
--> statement-breakpoint
ALTER TABLE "team_tokens" ADD CONSTRAINT "team_tokens_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "team_tokens_token_hash" ON "team_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "team_tokens_team" ON "team_tokens" USING btree ("team_id","created_at");