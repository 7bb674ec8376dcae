CREATE TABLE `delivery_receipts` (
	`recipient_id` text PRIMARY KEY NOT NULL,
	`reply` text NOT NULL,
	`host` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`recipient_id`) REFERENCES `recipients`(`id`) ON UPDATE no action ON DELETE cascade
);
