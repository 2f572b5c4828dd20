-- Where drizzleIdempotency (src/server.ts) keeps the Idempotency-Key of each POST and the
-- response it got: a retry with the same key is answered from here, not run again.
CREATE TABLE `jsonapi_idempotency_keys` (
	`key` text PRIMARY KEY NOT NULL,
	`fingerprint` text NOT NULL,
	`created_at` integer NOT NULL,
	`status` integer,
	`response` text,
	`holder` text,
	`written` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jsonapi_idempotency_keys_created_at_index` ON `jsonapi_idempotency_keys` (`created_at`);
