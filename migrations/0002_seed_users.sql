-- 10,000 users. User 1 is the one seed 001 reads: seungwoo / seungwoo@gmail.com.
-- The timestamps are fixed so that every fresh database answers the same bytes.
-- ON CONFLICT DO NOTHING: a restart does not duplicate or overwrite anything.
INSERT INTO users (id, name, email, created_at, updated_at)
SELECT i,
       CASE WHEN i = 1 THEN 'seungwoo' ELSE 'user' || i END,
       CASE WHEN i = 1 THEN 'seungwoo@gmail.com' ELSE 'user' || i || '@example.com' END,
       TIMESTAMPTZ '2024-01-01 00:00:00+00',
       TIMESTAMPTZ '2024-01-01 00:00:00+00'
FROM generate_series(1, 10000) AS i
ON CONFLICT (id) DO NOTHING;
