-- Every statement psycopg 3.1.7 (python3-psycopg) sent to PostgreSQL 15 for a connection, a
-- parameterised query and TypeInfo.fetch(conn, 'orders'). Collected with log_statement=all.
-- client: psycopg
BEGIN
-- end
-- client: psycopg
select id, name from orders where id = $1
-- end
-- client: psycopg
SAVEPOINT "_pg3_1"
-- end
-- client: psycopg
SELECT
	    typname AS name, oid, typarray AS array_oid,
	    oid::regtype::text AS regtype, typdelim AS delimiter
	FROM pg_type t
	WHERE t.oid = $1::regtype
	ORDER BY t.oid
-- end
-- client: psycopg
RELEASE "_pg3_1"
-- end
-- client: psycopg
COMMIT
-- end
