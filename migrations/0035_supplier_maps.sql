CREATE TABLE `supplier_board_map` (
	`supplier_code` text NOT NULL,
	`supplier_board_code` text NOT NULL,
	`board_code` text NOT NULL,
	PRIMARY KEY(`supplier_code`, `supplier_board_code`),
	FOREIGN KEY (`supplier_code`) REFERENCES `suppliers`(`code`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "supplier_board_map_board_code" CHECK("supplier_board_map"."board_code" IN ('RO', 'BB', 'HB', 'FB', 'AI'))
);
--> statement-breakpoint
CREATE TABLE `supplier_hotel_map` (
	`supplier_code` text NOT NULL,
	`supplier_hotel_code` text NOT NULL,
	`accommodation_code` text NOT NULL,
	PRIMARY KEY(`supplier_code`, `supplier_hotel_code`),
	FOREIGN KEY (`supplier_code`) REFERENCES `suppliers`(`code`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `supplier_hotel_map_accommodation` ON `supplier_hotel_map` (`supplier_code`,`accommodation_code`);--> statement-breakpoint
CREATE TABLE `supplier_room_map` (
	`supplier_code` text NOT NULL,
	`supplier_hotel_code` text NOT NULL,
	`supplier_room_code` text NOT NULL,
	`room_code` text NOT NULL,
	PRIMARY KEY(`supplier_code`, `supplier_hotel_code`, `supplier_room_code`),
	FOREIGN KEY (`supplier_code`,`supplier_hotel_code`) REFERENCES `supplier_hotel_map`(`supplier_code`,`supplier_hotel_code`) ON UPDATE no action ON DELETE cascade
);
