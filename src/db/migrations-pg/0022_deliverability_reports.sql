CREATE TABLE "dmarc_report_records" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"report_id" text COLLATE "C" NOT NULL,
	"domain_id" text COLLATE "C" NOT NULL,
	"day" text COLLATE "C" NOT NULL,
	"org_name" text COLLATE "C" NOT NULL,
	"source_ip" text COLLATE "C" NOT NULL,
	"count" integer NOT NULL,
	"disposition" text COLLATE "C" NOT NULL,
	"dkim" text COLLATE "C" NOT NULL,
	"spf" text COLLATE "C" NOT NULL,
	"header_from" text COLLATE "C" NOT NULL,
	"envelope_from" text COLLATE "C",
	"dkim_results" text COLLATE "C" NOT NULL,
	"spf_results" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dmarc_reports" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"team_id" text COLLATE "C" NOT NULL,
	"domain_id" text COLLATE "C" NOT NULL,
	"org_name" text COLLATE "C" NOT NULL,
	"report_id" text COLLATE "C" NOT NULL,
	"reporter_email" text COLLATE "C",
	"begin_at" bigint NOT NULL,
	"end_at" bigint NOT NULL,
	"day" text COLLATE "C" NOT NULL,
	"policy" text COLLATE "C" NOT NULL,
	"messages" integer NOT NULL,
	"received_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sending_addresses" (
	"ip" text COLLATE "C" PRIMARY KEY NOT NULL,
	"first_seen_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tlsrpt_reports" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"team_id" text COLLATE "C" NOT NULL,
	"domain_id" text COLLATE "C" NOT NULL,
	"org_name" text COLLATE "C" NOT NULL,
	"report_id" text COLLATE "C" NOT NULL,
	"contact" text COLLATE "C",
	"begin_at" bigint NOT NULL,
	"end_at" bigint NOT NULL,
	"day" text COLLATE "C" NOT NULL,
	"received_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tlsrpt_results" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"report_id" text COLLATE "C" NOT NULL,
	"domain_id" text COLLATE "C" NOT NULL,
	"day" text COLLATE "C" NOT NULL,
	"org_name" text COLLATE "C" NOT NULL,
	"policy_type" text COLLATE "C" NOT NULL,
	"policy_domain" text COLLATE "C" NOT NULL,
	"mx_host" text COLLATE "C" NOT NULL,
	"result_type" text COLLATE "C" NOT NULL,
	"sending_ip" text COLLATE "C",
	"receiving_ip" text COLLATE "C",
	"count" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dmarc_report_records" ADD CONSTRAINT "dmarc_report_records_report_id_dmarc_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."dmarc_reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dmarc_report_records" ADD CONSTRAINT "dmarc_report_records_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dmarc_reports" ADD CONSTRAINT "dmarc_reports_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dmarc_reports" ADD CONSTRAINT "dmarc_reports_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tlsrpt_reports" ADD CONSTRAINT "tlsrpt_reports_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tlsrpt_reports" ADD CONSTRAINT "tlsrpt_reports_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tlsrpt_results" ADD CONSTRAINT "tlsrpt_results_report_id_tlsrpt_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."tlsrpt_reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tlsrpt_results" ADD CONSTRAINT "tlsrpt_results_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dmarc_report_records_domain_day" ON "dmarc_report_records" USING btree ("domain_id","day");--> statement-breakpoint
CREATE INDEX "dmarc_report_records_report" ON "dmarc_report_records" USING btree ("report_id");--> statement-breakpoint
CREATE UNIQUE INDEX "dmarc_reports_unique" ON "dmarc_reports" USING btree ("domain_id","org_name","report_id");--> statement-breakpoint
CREATE INDEX "dmarc_reports_domain_day" ON "dmarc_reports" USING btree ("domain_id","day");--> statement-breakpoint
CREATE UNIQUE INDEX "tlsrpt_reports_unique" ON "tlsrpt_reports" USING btree ("domain_id","org_name","report_id");--> statement-breakpoint
CREATE INDEX "tlsrpt_reports_domain_day" ON "tlsrpt_reports" USING btree ("domain_id","day");--> statement-breakpoint
CREATE INDEX "tlsrpt_results_domain_day" ON "tlsrpt_results" USING btree ("domain_id","day");--> statement-breakpoint
CREATE INDEX "tlsrpt_results_report" ON "tlsrpt_results" USING btree ("report_id");