-- Items per status, kept by a trigger, so that admission control (D9) reads a few rows
-- instead of counting a queue that may be long: every ingest batch reads the queued count,
-- and counting grew with the queue, most in a storm (docs/performance.md, "Replicas on
-- PostgreSQL"). SQLite keeps one row per status (0001_events_and_queue.sql); here each status
-- has 64 shards and a transaction adds to the shard of its backend, so that the ingest
-- transactions of replicas and connections committing at once do not wait for one row.
CREATE TABLE queue_depth (
  status  TEXT NOT NULL,
  shard   INTEGER NOT NULL,
  items   BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (status, shard)
);
INSERT INTO queue_depth (status, shard)
  SELECT status, shard FROM unnest(ARRAY['queued', 'processing', 'done', 'failed']) AS status
  CROSS JOIN generate_series(0, 63) AS shard;
UPDATE queue_depth d SET items = c.n
  FROM (SELECT status, count(*) AS n FROM queue_items GROUP BY status) c
  WHERE d.status = c.status AND d.shard = 0;

CREATE FUNCTION queue_depth_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  backend_shard INTEGER := pg_backend_pid() % 64;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE queue_depth SET items = items - 1 WHERE status = OLD.status AND shard = backend_shard;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE queue_depth SET items = items + 1 WHERE status = NEW.status AND shard = backend_shard;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER queue_items_count_insert AFTER INSERT OR DELETE ON queue_items
  FOR EACH ROW EXECUTE FUNCTION queue_depth_count();
CREATE TRIGGER queue_items_count_update AFTER UPDATE OF status ON queue_items
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION queue_depth_count();
