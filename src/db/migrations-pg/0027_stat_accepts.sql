CREATE TABLE "stat_accepts" (
	"team_id" text COLLATE "C" NOT NULL,
	"day" bigint NOT NULL,
	"project_id" text COLLATE "C" NOT NULL,
	"route_id" text COLLATE "C" NOT NULL,
	"message_type" text COLLATE "C" NOT NULL,
	"sending_domain" text COLLATE "C" NOT NULL,
	"provider" text COLLATE "C" NOT NULL,
	"tag" text COLLATE "C" NOT NULL,
	"slot" integer NOT NULL,
	"accepted" integer DEFAULT 0 NOT NULL,
	"recipients" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "stat_accepts_team_id_day_project_id_route_id_message_type_sending_domain_provider_tag_slot_pk" PRIMARY KEY("team_id","day","project_id","route_id","message_type","sending_domain","provider","tag","slot")
);
--> statement-breakpoint
ALTER TABLE "stat_days" DROP COLUMN "accepted";--> statement-breakpoint
ALTER TABLE "stat_days" DROP COLUMN "recipients";--> statement-breakpoint
ALTER TABLE "stat_hours" DROP COLUMN "accepted";--> statement-breakpoint
ALTER TABLE "stat_hours" DROP COLUMN "recipients";