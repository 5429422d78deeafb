-- Reference data, run on every shard at startup by shardwise.sql.init.locations (development only).
INSERT INTO country (code, name) VALUES ('DE', 'Germany'), ('FR', 'France'), ('NL', 'Netherlands')
  ON CONFLICT (code) DO NOTHING;
