CREATE TABLE "push_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"notification_id" bigint NOT NULL,
	"subscription_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	CONSTRAINT "push_deliveries_attempts_not_negative" CHECK ("push_deliveries"."attempts" >= 0)
);
--> statement-breakpoint
CREATE TABLE "push_subscriptions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"subscription" text NOT NULL,
	"endpoint_hash" text NOT NULL,
	"device" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone,
	"removed_reason" text,
	CONSTRAINT "push_subscriptions_removed_complete" CHECK (("push_subscriptions"."removed_at" is null) = ("push_subscriptions"."removed_reason" is null))
);
--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."notifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_subscription_id_push_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."push_subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_member_id_users_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "push_deliveries_once" ON "push_deliveries" USING btree ("notification_id","subscription_id");--> statement-breakpoint
CREATE INDEX "push_deliveries_unsent_idx" ON "push_deliveries" USING btree ("id") WHERE "push_deliveries"."sent_at" is null;--> statement-breakpoint
CREATE INDEX "push_subscriptions_member_idx" ON "push_subscriptions" USING btree ("member_id");--> statement-breakpoint
CREATE UNIQUE INDEX "push_subscriptions_live_endpoint_unique" ON "push_subscriptions" USING btree ("endpoint_hash") WHERE "push_subscriptions"."removed_at" is null;--> statement-breakpoint
-- Every notification, however it is written (notify, notifyAll, an ACH file's notifications), queues
-- one push for each of the member's live devices in the same statement and so the same transaction
-- (docs/decisions/0023-web-push.md). One insert per statement, from the transition table.
CREATE FUNCTION push_deliveries_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO push_deliveries (notification_id, subscription_id)
  SELECT n.id, s.id
    FROM new_notifications n
    JOIN push_subscriptions s ON s.member_id = n.member_id AND s.removed_at IS NULL;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER notifications_push_deliveries AFTER INSERT ON notifications REFERENCING NEW TABLE AS new_notifications FOR EACH STATEMENT EXECUTE FUNCTION push_deliveries_queue();
