ALTER TABLE `bookings` ADD `payment_type` text DEFAULT 'MerchantPay' NOT NULL;--> statement-breakpoint
ALTER TABLE `bookings` ADD `payment_card` text;