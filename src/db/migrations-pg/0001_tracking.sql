CREATE TABLE "tracked_links" (
	"message_id" text COLLATE "C" NOT NULL,
	"link_index" integer NOT NULL,
	"url" text COLLATE "C" NOT NULL,
	CONSTRAINT "tracked_links_message_id_link_index_pk" PRIMARY KEY("message_id","link_index")
);
--> statement-breakpoint
CREATE TABLE "tracking_hits" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"message_id" text COLLATE "C" NOT NULL,
	"recipient_id" text COLLATE "C" NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"link_index" integer,
	"ip" text COLLATE "C",
	"user_agent" text COLLATE "C",
	"machine" integer NOT NULL,
	"machine_reason" text COLLATE "C",
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "message_contents" ADD COLUMN "track_opens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "message_contents" ADD COLUMN "track_clicks" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tracked_links" ADD CONSTRAINT "tracked_links_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracking_hits" ADD CONSTRAINT "tracking_hits_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracking_hits" ADD CONSTRAINT "tracking_hits_recipient_id_recipients_id_fk" FOREIGN KEY ("recipient_id") REFERENCES "public"."recipients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tracking_hits_recipient" ON "tracking_hits" USING btree ("recipient_id","created_at");--> statement-breakpoint
CREATE INDEX "tracking_hits_message" ON "tracking_hits" USING btree ("message_id","created_at");