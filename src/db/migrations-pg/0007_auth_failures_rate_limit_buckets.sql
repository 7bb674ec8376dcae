CREATE TABLE "auth_failures" (
	"key" text COLLATE "C" PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"window_started_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_buckets" (
	"key" text COLLATE "C" PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"updated_at" bigint NOT NULL
);
