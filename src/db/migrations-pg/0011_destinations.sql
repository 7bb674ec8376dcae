CREATE TABLE "destinations" (
	"name" text COLLATE "C" PRIMARY KEY NOT NULL,
	"domains" text COLLATE "C" NOT NULL,
	"concurrency" integer,
	"per_minute" integer,
	"paused_until" bigint,
	"strikes" integer DEFAULT 0 NOT NULL,
	"last_reply" text COLLATE "C",
	"throttled_at" bigint,
	"updated_by" text COLLATE "C" NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "destinations_updated" ON "destinations" USING btree ("updated_at");