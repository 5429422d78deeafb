-- reference rows: every shard
INSERT INTO seed_kind (id, name) VALUES (1, 'cat'), (2, 'dog') ON CONFLICT DO NOTHING;
INSERT INTO seed_vet (id, name) VALUES (1, 'James') ON CONFLICT DO NOTHING;
INSERT INTO seed_vet_kinds (seed_vet_id, kinds_id) VALUES (1, 2) ON CONFLICT DO NOTHING;

/* owners: each on its key's shard, one multi-row INSERT split by shard */
INSERT INTO seed_owner (id, name) VALUES
  (1, 'Ada'), (2, 'Bob; -- not a comment'), (3, 'Cy'),
  (4, 'Dee'), (5, 'Eve'), (6, 'Fay')
  ON CONFLICT (id) DO NOTHING;
INSERT INTO seed_owner VALUES (7, 'Gil') ON CONFLICT DO NOTHING;
INSERT INTO seed_pet (id, owner_id, name) SELECT 10, 4, 'Leo' WHERE NOT EXISTS (SELECT 1 FROM seed_pet WHERE id = 10);
