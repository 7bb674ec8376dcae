-- The compose and per-domain delivery queues became one "outbound" job per message, which
-- delivers to every recipient without a final status. Queued work moves over: compose jobs as
-- they are, delivery jobs as one outbound job per message (unless it already has one).
UPDATE jobs SET queue = 'outbound' WHERE queue = 'compose';--> statement-breakpoint
INSERT INTO jobs (queue, payload, run_at, attempts, max_attempts, created_at)
SELECT 'outbound', json_object('messageId', json_extract(payload, '$.messageId')), min(run_at), 0, 1000, min(created_at)
FROM jobs
WHERE queue = 'delivery' AND dead_at IS NULL
  AND json_extract(payload, '$.messageId') NOT IN (SELECT json_extract(payload, '$.messageId') FROM jobs WHERE queue = 'outbound')
GROUP BY json_extract(payload, '$.messageId');--> statement-breakpoint
DELETE FROM jobs WHERE queue = 'delivery' AND dead_at IS NULL;
