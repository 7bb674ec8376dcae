ALTER TABLE "tracking_hits" ADD COLUMN "route_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "tracking_hits" ADD COLUMN "message_created_at" bigint;--> statement-breakpoint
UPDATE "tracking_hits" h SET "route_id" = m."route_id", "message_created_at" = m."created_at" FROM "messages" m WHERE m."id" = h."message_id";--> statement-breakpoint
ALTER TABLE "tracking_hits" ADD CONSTRAINT "tracking_hits_route_id_routes_id_fk" FOREIGN KEY ("route_id") REFERENCES "public"."routes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tracking_hits_route" ON "tracking_hits" USING btree ("route_id","kind","machine","message_created_at");
