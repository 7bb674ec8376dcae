ALTER TABLE `tracking_hits` ADD `route_id` text REFERENCES routes(id) ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE `tracking_hits` ADD `message_created_at` integer;--> statement-breakpoint
UPDATE `tracking_hits` SET `route_id` = (SELECT `route_id` FROM `messages` WHERE `messages`.`id` = `tracking_hits`.`message_id`), `message_created_at` = (SELECT `created_at` FROM `messages` WHERE `messages`.`id` = `tracking_hits`.`message_id`);--> statement-breakpoint
CREATE INDEX `tracking_hits_route` ON `tracking_hits` (`route_id`,`kind`,`machine`,`message_created_at`);
