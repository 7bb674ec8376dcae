CREATE TABLE "report_forwarding" (
	"project_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"team_id" text COLLATE "C" NOT NULL,
	"destination" text COLLATE "C" NOT NULL,
	"code_hash" text COLLATE "C",
	"code_expires_at" bigint,
	"code_sent_at" bigint,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"verified_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "report_forwarding" ADD CONSTRAINT "report_forwarding_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_forwarding" ADD CONSTRAINT "report_forwarding_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;