CREATE TABLE "blocklist_status" (
	"target" text COLLATE "C" NOT NULL,
	"zone" text COLLATE "C" NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"listed" integer NOT NULL,
	"code" text COLLATE "C",
	"meaning" text COLLATE "C",
	"since" bigint NOT NULL,
	"checked_at" bigint NOT NULL,
	CONSTRAINT "blocklist_status_target_zone_pk" PRIMARY KEY("target","zone")
);
--> statement-breakpoint
CREATE TABLE "domain_warmups" (
	"domain_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"enabled" integer NOT NULL,
	"schedule" text COLLATE "C" NOT NULL,
	"started_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "warmup_counts" (
	"domain_id" text COLLATE "C" NOT NULL,
	"day" text COLLATE "C" NOT NULL,
	"sent" integer NOT NULL,
	CONSTRAINT "warmup_counts_domain_id_day_pk" PRIMARY KEY("domain_id","day")
);
--> statement-breakpoint
ALTER TABLE "domain_warmups" ADD CONSTRAINT "domain_warmups_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "warmup_counts" ADD CONSTRAINT "warmup_counts_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;