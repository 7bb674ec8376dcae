CREATE TABLE "dkim_keys" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"domain_id" text COLLATE "C" NOT NULL,
	"record_id" text COLLATE "C" NOT NULL,
	"algorithm" text COLLATE "C" NOT NULL,
	"selector" text COLLATE "C" NOT NULL,
	"private_key" text COLLATE "C" NOT NULL,
	"public_key" text COLLATE "C" NOT NULL,
	"state" text COLLATE "C" NOT NULL,
	"keep_until" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dkim_keys" ADD CONSTRAINT "dkim_keys_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dkim_keys" ADD CONSTRAINT "dkim_keys_record_id_dns_records_id_fk" FOREIGN KEY ("record_id") REFERENCES "public"."dns_records"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dkim_keys_domain" ON "dkim_keys" USING btree ("domain_id");--> statement-breakpoint
CREATE INDEX "dkim_keys_record" ON "dkim_keys" USING btree ("record_id");--> statement-breakpoint
CREATE INDEX "dkim_keys_keep_until" ON "dkim_keys" USING btree ("keep_until");