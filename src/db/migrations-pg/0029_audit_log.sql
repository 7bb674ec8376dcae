CREATE TABLE "audit_log" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"team_id" text COLLATE "C" NOT NULL,
	"actor_kind" text COLLATE "C" NOT NULL,
	"actor_id" text COLLATE "C",
	"actor_name" text COLLATE "C",
	"operation" text COLLATE "C" NOT NULL,
	"target_ids" text COLLATE "C" NOT NULL,
	"changes" text COLLATE "C" NOT NULL,
	"status" integer NOT NULL,
	"ip" text COLLATE "C",
	"user_agent" text COLLATE "C",
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "audit_log_team_created" ON "audit_log" USING btree ("team_id","created_at","id");--> statement-breakpoint
CREATE INDEX "audit_log_created" ON "audit_log" USING btree ("created_at");