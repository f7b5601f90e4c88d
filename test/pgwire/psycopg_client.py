# psycopg 3 against hop serve --pg-port: parameterised queries, server-side binding, binary
# results (test/pgwire_clients_test.cc). Run with /usr/bin/python3 (Debian's psycopg).
import sys

import psycopg
import psycopg.rows

with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    cur = conn.cursor()
    cur.execute("SELECT id, name FROM c.people WHERE id = %s AND name <> %s", (2, "x'); DROP"))
    print(cur.fetchall())
    cur.execute("SELECT %s AS t, %s AS f, %s AS n", ("it's", 1.5, None))
    print(cur.fetchone())
    bcur = conn.cursor(binary=True)
    bcur.execute("SELECT id, score, born FROM c.people WHERE id >= %s ORDER BY id", (1,))
    print(bcur.fetchall())
    cur.execute("SELECT COUNT(*) AS n FROM c.people")
    print(cur.fetchone()[0])
    # Rows as dicts, keyed as a PostgreSQL client names the columns it wrote unquoted.
    dcur = conn.cursor(row_factory=psycopg.rows.dict_row)
    dcur.execute("SELECT id, name AS who FROM c.people WHERE id = %s", (1,))
    print(dcur.fetchone())
    try:
        cur.execute("SELECT nope FROM c.people")
    except psycopg.Error as e:
        print("error", e.sqlstate)
    with conn.transaction():
        cur.execute("SELECT 1")
        print(cur.fetchone()[0])
    # psycopg prepares a query it has run five times, and forgets its prepared statements
    # (DEALLOCATE ALL) after any DROP.
    for i in range(6):
        cur.execute("SELECT %s AS n", (i,))
    print(cur.fetchone()[0])
    cur.execute("CREATE VIEW c.gone AS SELECT id FROM c.people")
    cur.execute("DROP VIEW c.gone")
    print(cur.statusmessage)
    for i in range(2):
        cur.execute("SELECT %s AS n", (i + 10,))
    print(cur.fetchone()[0])
