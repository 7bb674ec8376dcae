CREATE TABLE "acme_challenges" (
	"token" text COLLATE "C" PRIMARY KEY NOT NULL,
	"key_authorization" text COLLATE "C" NOT NULL,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tls_certificates" (
	"name" text COLLATE "C" PRIMARY KEY NOT NULL,
	"domains" text COLLATE "C",
	"cert_pem" text COLLATE "C",
	"key_pem" text COLLATE "C",
	"fingerprint" text COLLATE "C",
	"not_before" bigint,
	"not_after" bigint,
	"issued_at" bigint,
	"renew_requested_at" bigint,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_error" text COLLATE "C",
	"last_attempt_at" bigint,
	"next_attempt_at" bigint,
	"lease_owner" text COLLATE "C",
	"lease_until" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "acme_challenges_expires" ON "acme_challenges" USING btree ("expires_at");