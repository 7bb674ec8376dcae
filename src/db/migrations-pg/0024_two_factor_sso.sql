CREATE TABLE "sso_requests" (
	"state_hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"nonce" text COLLATE "C" NOT NULL,
	"code_verifier" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_recovery_codes" (
	"user_id" text COLLATE "C" NOT NULL,
	"code_hash" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "user_recovery_codes_user_id_code_hash_pk" PRIMARY KEY("user_id","code_hash")
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "second_factor" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "require_two_factor" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_secret" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_pending_secret" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_enabled_at" bigint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "user_recovery_codes" ADD CONSTRAINT "user_recovery_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sso_requests_expires" ON "sso_requests" USING btree ("expires_at");