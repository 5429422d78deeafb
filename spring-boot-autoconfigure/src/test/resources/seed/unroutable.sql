INSERT INTO seed_kind (id, name) VALUES (3, 'bird') ON CONFLICT DO NOTHING;
INSERT INTO seed_owner (id, name) VALUES (8, 'Hal') ON CONFLICT DO NOTHING;
INSERT INTO seed_owner (name) VALUES ('No key');
UPDATE seed_owner SET name = 'Everyone';
