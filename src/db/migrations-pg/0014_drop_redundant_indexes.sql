DROP INDEX "messages_team_created";--> statement-breakpoint
DROP INDEX "messages_message_id_header";--> statement-breakpoint
DROP INDEX "recipients_email";