-- The events webhooks recorded before the log (issue 28) join it: numbered per partner in the order
-- they were made (created_at, then id), named by their booking's partnerReference, their body the
-- event as the log serves it, and each partner's counter set to its last number.
UPDATE webhook_events SET sequence = (
  SELECT count(*) FROM webhook_events AS earlier
  WHERE earlier.partner_id = webhook_events.partner_id
    AND (earlier.created_at < webhook_events.created_at
      OR (earlier.created_at = webhook_events.created_at AND earlier.id <= webhook_events.id))
);
--> statement-breakpoint
UPDATE webhook_events SET partner_reference = coalesce(
  (SELECT partner_reference FROM bookings WHERE bookings.reference = webhook_events.booking_reference), ''
);
--> statement-breakpoint
UPDATE webhook_events SET body = json_object(
  'id', id, 'sequence', sequence, 'type', type, 'createdAt', created_at,
  'bookingReference', booking_reference, 'partnerReference', partner_reference,
  'data', json(json_extract(body, '$.data'))
);
--> statement-breakpoint
INSERT INTO partner_event_sequences (partner_id, last_sequence)
SELECT partner_id, max(sequence) FROM webhook_events GROUP BY partner_id;
