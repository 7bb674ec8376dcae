CREATE TABLE "message_tags" (
	"message_id" text COLLATE "C" NOT NULL,
	"team_id" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"value" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "message_tags_message_id_name_pk" PRIMARY KEY("message_id","name")
);
--> statement-breakpoint
ALTER TABLE "message_contents" ADD COLUMN "tls" text COLLATE "C" DEFAULT 'opportunistic' NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "tags" text COLLATE "C" DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "message_tags" ADD CONSTRAINT "message_tags_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_tags_team_tag" ON "message_tags" USING btree ("team_id","name","value","created_at","message_id");