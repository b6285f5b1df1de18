ALTER TABLE "outbox" ADD COLUMN "redacted_text_body" text;--> statement-breakpoint
-- Staff now read "redacted_text_body" instead of the deliverable text. Messages written before
-- this column existed get theirs here: every 6-digit code and every reset token masked.
UPDATE "outbox"
SET "redacted_text_body" = regexp_replace(regexp_replace("text_body", '\m[0-9]{6}\M', '••••••', 'g'), 'token=[^[:space:]]+', 'token=[removed]', 'g')
WHERE "kind" IN ('sign_in_code', 'password_reset');
