-- The written part of the differential corpus (test/differential_test.cc): queries over the
-- tables of data.sql and the demo databases, each run on hop and on PostgreSQL. Markers on the
-- comment lines before a query: `-- postgres: <sql>` gives PostgreSQL's spelling of it,
-- `-- refused: <text>` says hop must refuse it before running it, `-- sqlstate: <code> <why>`
-- gives hop's SQLSTATE for a query both refuse, hop for a cause of its own.

-- Projections and filters.
SELECT * FROM local.emp;
SELECT id, name FROM local.emp WHERE dept = 'eng' ORDER BY id;
SELECT id, salary FROM local.emp WHERE salary > 70000 ORDER BY salary DESC, id;
SELECT id FROM local.emp WHERE salary >= 70000.00 AND salary <= 100000 ORDER BY id;
SELECT id FROM local.emp WHERE NOT active ORDER BY id;
SELECT id FROM local.emp WHERE active IS NOT TRUE ORDER BY id;
SELECT id FROM local.emp WHERE active IS FALSE ORDER BY id;
SELECT id FROM local.emp WHERE active IS UNKNOWN ORDER BY id;
SELECT id FROM local.emp WHERE age BETWEEN 30 AND 40 ORDER BY id;
SELECT id FROM local.emp WHERE age NOT BETWEEN 30 AND 40 ORDER BY id;
SELECT id FROM local.emp WHERE dept IN ('eng', 'hr') ORDER BY id;
SELECT id FROM local.emp WHERE dept NOT IN ('eng', 'hr') ORDER BY id;
SELECT id FROM local.emp WHERE manager IN (1, NULL) ORDER BY id;
SELECT id FROM local.emp WHERE manager NOT IN (1, NULL);
SELECT id, name FROM local.emp WHERE name LIKE '%a%' ORDER BY id;
SELECT id, name FROM local.emp WHERE name LIKE 'A%' ORDER BY id;
SELECT id, name FROM local.emp WHERE name NOT LIKE '%e' ORDER BY id;
SELECT id FROM local.emp WHERE name IS NULL OR dept IS NULL ORDER BY id;
SELECT id, bonus FROM local.emp WHERE bonus < 0 OR bonus = 0 ORDER BY id;
SELECT id FROM local.emp WHERE hired < DATE '2016-01-01' ORDER BY id;
SELECT id FROM local.emp WHERE last_login >= TIMESTAMP '2026-01-02 00:00:00' ORDER BY id;
SELECT id FROM local.emp WHERE last_login = TIMESTAMP '2026-01-02 09:15:00.250' ORDER BY id;
SELECT id FROM local.emp WHERE hired = last_login;
SELECT DISTINCT dept FROM local.emp;
SELECT DISTINCT dept, active FROM local.emp;
SELECT COUNT(DISTINCT dept) AS depts FROM local.emp;

-- Expressions and NULL.
SELECT id, salary + bonus AS total, salary * 2 AS doubled, age / 7 AS sevenths, age % 7 AS rest FROM local.emp ORDER BY id;
SELECT id, -salary AS neg, salary - 0.01 AS less FROM local.emp ORDER BY id;
SELECT id, salary / 12 AS monthly FROM local.emp ORDER BY id;
SELECT id, salary * 1.05 AS raised FROM local.emp ORDER BY id;
SELECT id, age * 1.5 AS older FROM local.emp ORDER BY id;
SELECT id, bonus / 2 AS half, bonus * bonus AS squared FROM local.emp ORDER BY id;
SELECT id, COALESCE(name, dept, 'nobody') AS who FROM local.emp ORDER BY id;
SELECT id, COALESCE(bonus, salary) AS money FROM local.emp ORDER BY id;
SELECT id, NULLIF(dept, 'eng') AS d FROM local.emp ORDER BY id;
SELECT id, NULLIF(salary, 70000) AS s FROM local.emp ORDER BY id;
SELECT id, CASE WHEN age < 30 THEN 'young' WHEN age < 40 THEN 'mid' ELSE 'senior' END AS band FROM local.emp ORDER BY id;
SELECT id, CASE dept WHEN 'eng' THEN 1 WHEN 'sales' THEN 2 END AS code FROM local.emp ORDER BY id;
SELECT id, CASE WHEN active THEN salary ELSE 0 END AS paid FROM local.emp ORDER BY id;
SELECT id, CASE WHEN bonus IS NULL THEN -1 ELSE bonus END AS b FROM local.emp ORDER BY id;
SELECT id, name || ' (' || dept || ')' AS label FROM local.emp ORDER BY id;
SELECT id, name || age AS label FROM local.emp ORDER BY id;
SELECT id, age > 30 AND active AS a, age > 30 OR active AS o FROM local.emp ORDER BY id;
SELECT id, NOT (age > 30) AS young FROM local.emp ORDER BY id;
SELECT id, (age > 30) IS DISTINCT FROM active AS diff FROM local.emp ORDER BY id;
SELECT id, manager IS NOT DISTINCT FROM 1 AS reports FROM local.emp ORDER BY id;
SELECT 1 + 2 * 3 AS a, (1 + 2) * 3 AS b, 7 / 2 AS c, -7 / 2 AS d, 7 % 3 AS e, -7 % 3 AS f;
SELECT 1.5 + 2.25 AS a, 10.0 / 4 AS b, 2.5 * 2.5 AS c, 0.1 + 0.2 AS d;
SELECT 1 / 3.0 AS a, 2 / 3.0 AS b, 100 / 7.0 AS c;
SELECT 1e0 / 3 AS a, 2.0e0 * 3 AS b;
SELECT 'a' = 'a' AS a, 'a' < 'b' AS b, 'B' < 'a' AS c, 'abc' LIKE 'a_c' AS d, 'abc' LIKE 'A%' AS e;
SELECT NULL = NULL AS a, NULL IS NULL AS b, 1 + NULL AS c, 'x' || NULL AS d;
SELECT CAST(NULL AS INTEGER) AS n, COALESCE(NULL, NULL, 3) AS c;
SELECT ABS(-5) AS a, ABS(-2.5) AS b, MOD(17, 5) AS c, MOD(-17, 5) AS d, MOD(17.5, 5) AS e;
SELECT ROUND(2.345, 2) AS a, ROUND(-2.345, 2) AS b, ROUND(2.5) AS c, ROUND(-2.5) AS d, ROUND(1234.5, -2) AS e;
SELECT id, ROUND(salary / 7, 2) AS r, ROUND(d, 1) AS rd FROM local.emp JOIN local.nums USING (id) ORDER BY id;
SELECT CEIL(2.1) AS a, FLOOR(2.9) AS b, CEIL(-2.1) AS c, FLOOR(-2.9) AS d, CEIL(3) AS e;
SELECT id, CEIL(d) AS c, FLOOR(d) AS f, CEIL(x) AS cx, FLOOR(x) AS fx FROM local.nums ORDER BY id;
SELECT SQRT(16.0) AS a, POWER(2, 10) AS b, EXP(0) AS c, LN(1) AS d, LOG10(1000) AS e;
SELECT SIGN(-3) AS a, SIGN(0) AS b, SIGN(4.5) AS c;
SELECT id, SIGN(n) AS sn, SIGN(d) AS sd FROM local.nums ORDER BY id;
SELECT GREATEST(1, 5, 3) AS g, LEAST(1, 5, 3) AS l, GREATEST('a', 'b') AS gs;

-- Casts.
SELECT CAST('42' AS INTEGER) AS a, CAST(' 7 ' AS BIGINT) AS b, CAST('1.25' AS DECIMAL(5, 2)) AS c, CAST('2.5e1' AS DOUBLE) AS d;
SELECT CAST(42 AS VARCHAR) AS a, CAST(1.50 AS VARCHAR) AS b, CAST(-0.05 AS VARCHAR) AS c;
SELECT CAST(1.239 AS DECIMAL(5, 2)) AS a, CAST(-1.235 AS DECIMAL(5, 2)) AS b, CAST(7 AS DECIMAL(6, 3)) AS c;
SELECT CAST('2026-02-28' AS DATE) AS a, CAST('2026-02-28 12:34:56' AS TIMESTAMP) AS b, CAST('12:34:56' AS TIME) AS c;
SELECT CAST(DATE '2026-02-28' AS TIMESTAMP) AS a, CAST(TIMESTAMP '2026-02-28 12:34:56' AS DATE) AS b;
SELECT id, CAST(salary AS BIGINT) AS s FROM local.emp WHERE salary = 70000 ORDER BY id;
SELECT id, CAST(age AS DOUBLE) / 7 AS a FROM local.emp ORDER BY id;
SELECT id, CAST(id AS VARCHAR) || '-' || name AS k FROM local.emp ORDER BY id;
-- postgres: SELECT CAST('abc' AS INTEGER)
SELECT CAST('abc' AS INTEGER);
-- A whole number too large for its type is out of range (22003), not text of no number (22P02).
SELECT CAST('99999999999' AS INTEGER);
SELECT CAST('99999999999999999999999' AS BIGINT);
SELECT CAST('-40000' AS SMALLINT);
SELECT '1' + 2 AS a, '3' * 2 AS b;
-- sqlstate: 22P02 hop casts each w to INTEGER as Calcite does, where PostgreSQL has no = of text and integer (42883)
SELECT id FROM local.words WHERE w = 100;
-- Errors in values: both fail, with the same SQLSTATE (docs/pgwire.md, "Errors").
SELECT id, salary / 0 AS x FROM local.emp;
SELECT id, age / (id - id) AS x FROM local.emp;
SELECT id, age % (id - id) AS x FROM local.emp;
SELECT CAST(name AS INTEGER) AS x FROM local.emp;
SELECT CAST(w AS DATE) AS x FROM local.words;
SELECT CAST(40000 AS SMALLINT) AS x;
SELECT CAST(id * 100000 AS SMALLINT) AS x FROM local.emp;
SELECT b * b * b AS x FROM local.nums;
SELECT 9223372036854775807 + id AS x FROM local.emp;

-- Strings and LIKE.
SELECT id, UPPER(w) AS u, LOWER(w) AS l FROM local.words ORDER BY id;
SELECT id, CHAR_LENGTH(w) AS n, CHARACTER_LENGTH(w) AS m FROM local.words ORDER BY id;
SELECT id, SUBSTRING(w, 3) AS a, SUBSTRING(w, 1, 2) AS b, SUBSTRING(w, -1, 3) AS c FROM local.words ORDER BY id;
-- The standard's forms: FROM and FOR, IN.
SELECT id, SUBSTRING(w FROM 3) AS a, SUBSTRING(w FROM 1 FOR 2) AS b, POSITION('p' IN w) AS p FROM local.words ORDER BY id;
-- postgres: SELECT "ID", left("W", 2), right("W", 2) FROM "LOCAL"."WORDS" ORDER BY "ID"
SELECT id, LEFT(w, 2) AS l, RIGHT(w, 2) AS r FROM local.words ORDER BY id;
SELECT id, TRIM(w) AS t, '[' || TRIM(w) || ']' AS b FROM local.words ORDER BY id;
SELECT id, REPLACE(w, 'p', 'PP') AS r FROM local.words ORDER BY id;
SELECT id, w FROM local.words WHERE w LIKE '%!%%' ESCAPE '!' ORDER BY id;
SELECT id, w FROM local.words WHERE w LIKE '%!_%' ESCAPE '!' ORDER BY id;
SELECT id, w FROM local.words WHERE w LIKE '_____' ORDER BY id;
SELECT id, w FROM local.words WHERE w LIKE 'na%' ORDER BY id;
SELECT id, w FROM local.words WHERE w < 'b' ORDER BY id;
SELECT id, w FROM local.words ORDER BY w, id;
SELECT id, w FROM local.words ORDER BY w DESC NULLS LAST, id;
SELECT w, COUNT(*) AS n FROM local.words GROUP BY w ORDER BY w NULLS FIRST;
SELECT k, MIN(w) AS lo, MAX(w) AS hi FROM local.words GROUP BY k ORDER BY k;
SELECT LOWER(w) AS lw, COUNT(*) AS n FROM local.words WHERE w LIKE '%pple' GROUP BY LOWER(w);
SELECT id, LPAD(w, 12, '.') AS l, RPAD(w, 12, '.') AS r FROM local.words ORDER BY id;
SELECT 'O''Reilly' = w AS same FROM local.words WHERE id = 14;
-- postgres: SELECT "K", string_agg("W", ',' ORDER BY "ID") FROM "LOCAL"."WORDS" WHERE "W" IS NOT NULL GROUP BY "K"
SELECT k, LISTAGG(w, ',') WITHIN GROUP (ORDER BY id) FROM local.words WHERE w IS NOT NULL GROUP BY k;
-- postgres: SELECT length(string_agg(DISTINCT "DEPT", ';')) FROM "LOCAL"."EMP"
SELECT LENGTH(LISTAGG(DISTINCT dept, ';')) AS n FROM local.emp;
-- postgres: SELECT "ID", strpos("W", 'a'), strpos("W", '') FROM "LOCAL"."WORDS" ORDER BY "ID"
SELECT id, POSITION('a', w) AS p, POSITION('', w) AS e FROM local.words ORDER BY id;
-- postgres: SELECT "ID", strpos("W", 'p') FROM "LOCAL"."WORDS" ORDER BY "ID"
SELECT id, LOCATE('p', w) AS p FROM local.words ORDER BY id;
SELECT CAST('abc' AS VARCHAR(2)) AS a;
-- OVERLAY: defaults, zero and negative lengths, past the end, NULLs, multi-byte text; FROM 0
-- fails on both.
SELECT id, OVERLAY(w PLACING 'XY' FROM 2) AS a, OVERLAY(w PLACING 'XY' FROM 2 FOR 0) AS b, OVERLAY(w PLACING '' FROM 1 FOR 3) AS c, OVERLAY(w PLACING 'é' FROM 3 FOR 10) AS d FROM local.words ORDER BY id;
SELECT id, OVERLAY(w PLACING 'Z' FROM k FOR k) AS a, OVERLAY(w PLACING 'Z' FROM 20) AS b, OVERLAY(w PLACING 'Z' FROM 2 FOR -1) AS c, OVERLAY(w PLACING w FROM 3 FOR -5) AS d FROM local.words ORDER BY id;
SELECT OVERLAY('Txxxxas' PLACING 'hom' FROM 2 FOR 4) AS a, OVERLAY(NULL PLACING 'a' FROM 1) AS b, OVERLAY('abc' PLACING NULL FROM 1) AS c, OVERLAY('abc' PLACING 'x' FROM CAST(NULL AS INTEGER)) AS d, OVERLAY('abc' PLACING 'x' FROM 1 FOR CAST(NULL AS INTEGER)) AS e;
SELECT OVERLAY('abc' PLACING 'x' FROM 0) AS a;
-- An aggregate's ORDER BY among its arguments: keys of each direction, NULLs first and last, a
-- NULL separator (joins with nothing), FILTER, no rows, ARRAY_AGG (NULLs kept).
SELECT k, STRING_AGG(w, ',' ORDER BY id) AS s FROM local.words GROUP BY k ORDER BY k;
SELECT k, STRING_AGG(w, ' | ' ORDER BY w DESC NULLS LAST, id) AS s FROM local.words GROUP BY k ORDER BY k;
SELECT STRING_AGG(name, ';' ORDER BY age DESC, id) AS a, STRING_AGG(name, ';' ORDER BY age, id DESC) AS b FROM local.emp;
SELECT STRING_AGG(name, NULL ORDER BY id) AS s FROM local.emp WHERE id < 5;
SELECT dept, STRING_AGG(name, ',' ORDER BY salary NULLS FIRST, id) FILTER (WHERE active) AS s FROM local.emp GROUP BY dept ORDER BY dept NULLS LAST;
SELECT STRING_AGG(w, ',' ORDER BY id) AS s, COUNT(*) AS n FROM local.words WHERE id > 100;
SELECT ARRAY_AGG(name ORDER BY id DESC)[1] AS a, ARRAY_AGG(age ORDER BY age NULLS FIRST, id)[1] AS b, ARRAY_AGG(age ORDER BY age DESC NULLS LAST)[1] AS c, CARDINALITY(ARRAY_AGG(bonus ORDER BY id)) AS n FROM local.emp;
SELECT dept, ARRAY_AGG(id ORDER BY hired DESC, id)[2] AS second FROM local.emp GROUP BY dept ORDER BY dept NULLS LAST;
-- refused: ORDER BY inside SUM(...) is not supported
SELECT SUM(salary ORDER BY id) FROM local.emp;

-- Aggregates.
SELECT COUNT(*) AS n, COUNT(name) AS named, COUNT(bonus) AS with_bonus FROM local.emp;
SELECT SUM(salary) AS s, MIN(salary) AS lo, MAX(salary) AS hi FROM local.emp;
SELECT SUM(bonus) AS s, MIN(bonus) AS lo, MAX(bonus) AS hi FROM local.emp;
SELECT SUM(age) AS s, MIN(age) AS lo, MAX(age) AS hi, COUNT(DISTINCT age) AS ages FROM local.emp;
SELECT dept, COUNT(*) AS n, SUM(salary) AS total FROM local.emp GROUP BY dept;
SELECT dept, COUNT(*) AS n FROM local.emp GROUP BY dept HAVING COUNT(*) > 2;
SELECT dept, MAX(salary) - MIN(salary) AS spread FROM local.emp GROUP BY dept HAVING MAX(salary) > 60000;
SELECT dept, active, COUNT(*) AS n FROM local.emp GROUP BY dept, active;
SELECT age / 10 AS decade, COUNT(*) AS n FROM local.emp GROUP BY age / 10;
SELECT EXTRACT(YEAR FROM hired) AS y, COUNT(*) AS n FROM local.emp GROUP BY EXTRACT(YEAR FROM hired);
SELECT COUNT(*) FILTER (WHERE active) AS active_n, COUNT(*) FILTER (WHERE NOT active) AS inactive_n FROM local.emp;
-- An aggregate over a query that aggregates without GROUP BY (one row): not merged into one SELECT.
SELECT COUNT(*) AS n FROM (SELECT SUM(salary) AS s FROM local.emp) q;
SELECT COUNT(*) AS n FROM (SELECT SUM(salary) AS s FROM local.emp WHERE salary > 60000) q;
SELECT MAX(c) AS m FROM (SELECT COUNT(*) AS c FROM local.emp) q;
SELECT COUNT(c) AS n, SUM(c) AS s FROM (SELECT COUNT(bonus) AS c FROM local.emp) q;
SELECT c, COUNT(*) AS n FROM (SELECT COUNT(*) AS c FROM local.emp) q GROUP BY c;
SELECT SUM(id) AS s FROM local.emp WHERE id > (SELECT COUNT(*) FROM (SELECT MAX(age) AS m FROM local.emp) z);
SELECT e.id, (SELECT COUNT(*) FROM (SELECT COUNT(*) AS c FROM local.emp f WHERE f.dept = e.dept) z) AS one FROM local.emp e ORDER BY e.id;
SELECT dept, SUM(salary) FILTER (WHERE age > 30) AS senior_pay FROM local.emp GROUP BY dept;
SELECT COUNT(*) AS n, SUM(salary) AS s, MAX(name) AS m FROM local.emp WHERE id > 100;
SELECT dept, COUNT(*) AS n FROM local.emp WHERE id > 100 GROUP BY dept;
SELECT SUM(salary * 2) AS s2, SUM(salary) * 2 AS s3, SUM(age + 1) AS a FROM local.emp;
SELECT BOOL_AND(active) AS all_active, BOOL_OR(active) AS any_active FROM local.emp;
SELECT dept, BOOL_AND(active) AS all_active FROM local.emp GROUP BY dept;
SELECT AVG(bonus) AS b, AVG(CAST(age AS DOUBLE)) AS a FROM local.emp;
SELECT dept, AVG(bonus) AS b FROM local.emp GROUP BY dept;
SELECT COUNT(*) AS n FROM (SELECT DISTINCT dept, active FROM local.emp) AS t;
SELECT MAX(n) AS mx, MIN(n) AS mn, SUM(n) AS s, SUM(d) AS sd, SUM(x) AS sx, SUM(b) AS sb FROM local.nums;
SELECT n % 2 AS parity, COUNT(*) AS c, SUM(d) AS s FROM local.nums GROUP BY n % 2;
SELECT STDDEV_POP(x) AS a, VAR_POP(x) AS b, STDDEV_SAMP(x) AS c, VAR_SAMP(x) AS d FROM local.nums WHERE x BETWEEN -5 AND 200;
-- postgres: SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY "X"), percentile_disc(0.5) WITHIN GROUP (ORDER BY "N") FROM "LOCAL"."NUMS"
SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x), PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY n) FROM local.nums;

-- Joins.
SELECT e.id, e.name, d.title FROM local.emp e JOIN local.dept d ON e.dept = d.code ORDER BY e.id;
SELECT e.id, d.title FROM local.emp e LEFT JOIN local.dept d ON e.dept = d.code ORDER BY e.id;
SELECT e.id, d.code FROM local.emp e RIGHT JOIN local.dept d ON e.dept = d.code;
SELECT e.id, d.code FROM local.emp e FULL JOIN local.dept d ON e.dept = d.code;
SELECT d.code, COUNT(e.id) AS n FROM local.dept d LEFT JOIN local.emp e ON e.dept = d.code GROUP BY d.code;
SELECT e.name, m.name AS boss FROM local.emp e JOIN local.emp m ON e.manager = m.id ORDER BY e.id;
SELECT e.name, m.name AS boss FROM local.emp e LEFT JOIN local.emp m ON e.manager = m.id ORDER BY e.id;
SELECT e.id, d.code FROM local.emp e CROSS JOIN local.dept d WHERE e.id <= 2;
SELECT e.id, d.code FROM local.emp e, local.dept d WHERE e.dept = d.code AND d.floor > 1;
SELECT e.id, d.title FROM local.emp e JOIN local.dept d ON e.dept = d.code AND e.salary > 80000 ORDER BY e.id;
SELECT e.id, n.x FROM local.emp e JOIN local.nums n ON e.id = n.id WHERE n.x > 0 ORDER BY e.id;
SELECT e.id, n.d FROM local.emp e JOIN local.nums n ON e.age > n.n * 4 AND e.id = n.id ORDER BY e.id;
SELECT a.id, b.id FROM local.nums a JOIN local.nums b ON a.n = b.n AND a.id < b.id;
SELECT a.id, b.id FROM local.nums a JOIN local.nums b ON a.d = b.x;
SELECT dept, title FROM local.emp JOIN local.dept ON dept = code GROUP BY dept, title;
-- Joins read through hashed scans: NULL keys, duplicate keys, several keys, keys of each type.
SELECT e.id, m.id AS mid FROM local.emp e LEFT JOIN local.emp m ON e.manager = m.id ORDER BY e.id;
SELECT a.id, b.id AS bid FROM local.emp a JOIN local.emp b ON a.dept = b.dept AND a.active = b.active ORDER BY a.id, b.id;
SELECT a.id, b.id AS bid FROM local.emp a JOIN local.emp b ON a.salary = b.salary AND a.id <> b.id ORDER BY a.id;
SELECT a.id, b.id AS bid FROM local.emp a JOIN local.emp b ON a.hired = b.hired AND a.id < b.id;
SELECT a.id, b.id AS bid FROM local.emp a JOIN local.emp b ON a.last_login = b.last_login AND a.id < b.id;
SELECT a.id, b.id AS bid FROM local.nums a JOIN local.nums b ON a.x = b.x ORDER BY a.id;
SELECT a.id, b.id AS bid FROM local.nums a JOIN local.nums b ON a.d = b.d ORDER BY a.id;
SELECT a.id, b.id AS bid FROM local.nums a LEFT JOIN local.nums b ON a.n = b.b ORDER BY a.id, b.id;
SELECT w.id, v.id AS vid FROM local.words w JOIN local.words v ON w.w = v.w AND w.id <> v.id ORDER BY w.id;
SELECT w.id, n.id AS nid FROM local.words w, local.nums n WHERE n.n = w.k + 1 ORDER BY w.id, n.id;
SELECT e.id, d.title FROM local.emp e JOIN local.dept d ON e.dept = d.code AND d.floor > 1 ORDER BY e.id;
SELECT d.code, (SELECT COUNT(*) FROM local.emp e JOIN local.emp m ON e.manager = m.id WHERE m.dept = d.code) AS n FROM local.dept d ORDER BY d.code;
SELECT m.first_name, d.title FROM profile.members m JOIN local.dept d ON LOWER(SUBSTRING(m.last_name, 1, 1)) = SUBSTRING(d.code, 1, 1);
SELECT m.first_name, p.page_urn FROM profile.members m LEFT JOIN ads.page_views p ON m.member_urn = p.member_urn ORDER BY m.first_name;
SELECT c.company_name, COUNT(*) AS n FROM profile.members m JOIN profile.companies c ON m.company_urn = c.company_urn GROUP BY c.company_name;
SELECT first_name, last_name, page_urn FROM ads.page_views NATURAL JOIN profile.members;
SELECT e.id, w.w FROM local.emp e JOIN local.words w USING (id) WHERE w.w LIKE '%a%' ORDER BY e.id;

-- Subqueries.
SELECT id, name FROM local.emp WHERE salary > (SELECT AVG(bonus) * 50 FROM local.emp) ORDER BY id;
SELECT id FROM local.emp WHERE dept IN (SELECT code FROM local.dept WHERE floor >= 2) ORDER BY id;
SELECT id FROM local.emp WHERE dept NOT IN (SELECT code FROM local.dept WHERE floor >= 2) ORDER BY id;
SELECT id FROM local.emp WHERE dept NOT IN (SELECT code FROM local.dept WHERE floor IS NULL OR floor > 1);
SELECT id FROM local.emp WHERE manager NOT IN (SELECT manager FROM local.emp WHERE id > 10);
SELECT code FROM local.dept d WHERE EXISTS (SELECT 1 FROM local.emp e WHERE e.dept = d.code AND e.active);
SELECT code FROM local.dept d WHERE NOT EXISTS (SELECT 1 FROM local.emp e WHERE e.dept = d.code);
SELECT id, (SELECT title FROM local.dept d WHERE d.code = e.dept) AS title FROM local.emp e ORDER BY id;
SELECT id, (SELECT COUNT(*) FROM local.emp r WHERE r.manager = e.id) AS reports FROM local.emp e ORDER BY id;
SELECT id FROM local.emp e WHERE salary > (SELECT AVG(salary) FROM local.emp x WHERE x.dept = e.dept) ORDER BY id;
SELECT t.dept, t.n FROM (SELECT dept, COUNT(*) AS n FROM local.emp GROUP BY dept) AS t WHERE t.n > 1;
SELECT MAX(n) AS most FROM (SELECT dept, COUNT(*) AS n FROM local.emp GROUP BY dept) AS t;
WITH big AS (SELECT * FROM local.emp WHERE salary > 90000) SELECT id, name FROM big ORDER BY id;
WITH d AS (SELECT dept, SUM(salary) AS s FROM local.emp GROUP BY dept), t AS (SELECT SUM(s) AS total FROM d) SELECT dept, s FROM d, t WHERE s * 4 > total;
SELECT id FROM local.emp WHERE (SELECT MAX(floor) FROM local.dept) > 3 AND id < 3 ORDER BY id;
SELECT id, name FROM local.emp WHERE id IN (SELECT manager FROM local.emp) ORDER BY id;
SELECT id FROM local.nums WHERE x = (SELECT MAX(x) FROM local.nums);
-- Quantified comparisons over a query, with every comparison: a NULL among the rows, a NULL
-- operand, no rows, correlated, in HAVING, across types.
SELECT id FROM local.emp WHERE salary > ALL (SELECT budget / 20 FROM local.dept WHERE budget IS NOT NULL) ORDER BY id;
SELECT id, age > ALL (SELECT floor * 10 FROM local.dept) AS gt_all, age > ANY (SELECT floor * 10 FROM local.dept) AS gt_any, age >= ALL (SELECT floor * 10 FROM local.dept WHERE floor IS NOT NULL) AS ge_all FROM local.emp ORDER BY id;
SELECT id, age < ANY (SELECT floor * 10 FROM local.dept) AS lt_any, age <= ALL (SELECT floor * 10 FROM local.dept) AS le_all, age < ALL (SELECT floor * 10 FROM local.dept WHERE floor > 1) AS lt_all, age <= SOME (SELECT floor * 10 FROM local.dept WHERE floor < 4) AS le_some FROM local.emp ORDER BY id;
SELECT id, age = ANY (SELECT age FROM local.emp WHERE dept = 'eng') AS eq_any, age <> ALL (SELECT age FROM local.emp WHERE dept = 'eng') AS ne_all, age <> ANY (SELECT age FROM local.emp WHERE dept = 'hr') AS ne_any, age = ALL (SELECT age FROM local.emp WHERE id IN (3, 15)) AS eq_all FROM local.emp ORDER BY id;
SELECT id, n <> ANY (SELECT n FROM local.nums WHERE id IN (1, 7)) AS ne_any_null, n = ALL (SELECT n FROM local.nums WHERE id IN (2, 7)) AS eq_all_null, n = ANY (SELECT n FROM local.nums WHERE id IN (1, 7)) AS eq_any_null, n <> ANY (SELECT n FROM local.nums WHERE id = 7) AS only_null FROM local.nums ORDER BY id;
SELECT 1 > ALL (SELECT n FROM local.nums WHERE id > 100) AS a, 1 > ANY (SELECT n FROM local.nums WHERE id > 100) AS b, CAST(NULL AS INTEGER) > ALL (SELECT n FROM local.nums WHERE id > 100) AS c, CAST(NULL AS INTEGER) = ANY (SELECT n FROM local.nums WHERE id > 100) AS d, CAST(NULL AS INTEGER) < ANY (SELECT n FROM local.nums) AS e;
SELECT 1 > ALL (SELECT CAST(NULL AS INTEGER)) AS a, 1 > ANY (SELECT CAST(NULL AS INTEGER)) AS b, 5 = ANY (SELECT n FROM local.nums WHERE id IN (1, 7)) AS c, 0 = ANY (SELECT n FROM local.nums WHERE id IN (1, 7)) AS d, 5 <> ALL (SELECT n FROM local.nums WHERE id IN (1, 7)) AS e;
SELECT d.code FROM local.dept d WHERE d.floor * 10 >= ALL (SELECT e.age FROM local.emp e WHERE e.dept = d.code) ORDER BY d.code;
SELECT d.code, d.floor < ANY (SELECT e.age / 10 FROM local.emp e WHERE e.dept = d.code) AS young FROM local.dept d ORDER BY d.code;
SELECT dept, COUNT(*) AS n FROM local.emp GROUP BY dept HAVING COUNT(*) > ALL (SELECT floor FROM local.dept WHERE floor < 3) ORDER BY dept NULLS LAST;
SELECT id, d < ANY (SELECT x FROM local.nums WHERE x > 1) AS a, n >= ALL (SELECT salary / 10000 FROM local.emp WHERE salary IS NOT NULL) AS b, x > SOME (SELECT d FROM local.nums WHERE d < 0) AS c FROM local.nums ORDER BY id;
SELECT id, w > ALL (SELECT w FROM local.words WHERE k = 3) AS a, w < ANY (SELECT code FROM local.dept) AS b, w <> ALL (SELECT w FROM local.words WHERE id < 4) AS c FROM local.words ORDER BY id;
SELECT id, day >= ALL (SELECT day FROM local.events WHERE kind = 'click') AS latest, at < ANY (SELECT at FROM local.events WHERE kind = 'buy') AS before_buy FROM local.events ORDER BY id;
-- BETWEEN SYMMETRIC: bounds in either order, NOT, NULL bounds and operands, equal bounds, across
-- types; ASYMMETRIC is plain BETWEEN.
SELECT id FROM local.emp WHERE age BETWEEN SYMMETRIC 40 AND 30 ORDER BY id;
SELECT id FROM local.emp WHERE age NOT BETWEEN SYMMETRIC 40 AND 30 ORDER BY id;
SELECT id FROM local.emp WHERE age BETWEEN ASYMMETRIC 40 AND 30 ORDER BY id;
SELECT id, age BETWEEN SYMMETRIC manager * 10 AND 35 AS s, age NOT BETWEEN SYMMETRIC 35 AND manager * 10 AS ns FROM local.emp ORDER BY id;
SELECT id, n BETWEEN SYMMETRIC d AND x AS s, x NOT BETWEEN SYMMETRIC b AND n AS ns FROM local.nums ORDER BY id;
SELECT 5 BETWEEN SYMMETRIC NULL AND 10 AS a, 15 BETWEEN SYMMETRIC NULL AND 10 AS b, 15 NOT BETWEEN SYMMETRIC 10 AND NULL AS c, NULL BETWEEN SYMMETRIC 1 AND 2 AS d, 2 BETWEEN SYMMETRIC 2 AND 2 AS e;
SELECT id FROM local.words WHERE w BETWEEN SYMMETRIC 'b' AND 'A' ORDER BY id;
SELECT id FROM local.events WHERE day BETWEEN SYMMETRIC DATE '2025-12-31' AND DATE '2000-01-01' ORDER BY id;

-- Set operations.
SELECT dept FROM local.emp UNION SELECT code FROM local.dept;
SELECT dept FROM local.emp UNION ALL SELECT code FROM local.dept;
SELECT dept FROM local.emp INTERSECT SELECT code FROM local.dept;
SELECT code FROM local.dept EXCEPT SELECT dept FROM local.emp;
SELECT dept FROM local.emp INTERSECT ALL SELECT dept FROM local.emp WHERE salary > 60000;
SELECT dept FROM local.emp EXCEPT ALL SELECT dept FROM local.emp WHERE salary > 60000;
SELECT n FROM local.nums UNION SELECT age FROM local.emp;
SELECT d FROM local.nums UNION SELECT salary FROM local.emp WHERE id < 4;
SELECT x FROM local.nums UNION ALL SELECT 1.5 UNION ALL SELECT 2;
SELECT name FROM local.emp WHERE id < 3 UNION SELECT w FROM local.words WHERE id < 3 ORDER BY 1;
SELECT id, name FROM local.emp WHERE id < 3 UNION ALL SELECT id, w FROM local.words WHERE id < 3 ORDER BY id, name;
SELECT COUNT(*) AS n FROM (SELECT dept FROM local.emp UNION SELECT code FROM local.dept) AS u;

-- Windows.
SELECT id, dept, ROW_NUMBER() OVER (PARTITION BY dept ORDER BY salary DESC, id) AS rn FROM local.emp ORDER BY id;
SELECT id, RANK() OVER (ORDER BY salary DESC) AS r, DENSE_RANK() OVER (ORDER BY salary DESC) AS dr FROM local.emp ORDER BY id;
SELECT id, SUM(salary) OVER (PARTITION BY dept) AS dept_total FROM local.emp ORDER BY id;
SELECT id, SUM(salary) OVER (ORDER BY id) AS running FROM local.emp ORDER BY id;
SELECT id, SUM(age) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s FROM local.emp ORDER BY id;
SELECT id, COUNT(*) OVER (PARTITION BY active) AS n FROM local.emp ORDER BY id;
SELECT id, LAG(salary) OVER (ORDER BY id) AS prev, LEAD(salary, 2) OVER (ORDER BY id) AS next2 FROM local.emp ORDER BY id;
SELECT id, LAG(name, 1, 'none') OVER (PARTITION BY dept ORDER BY id) AS prev FROM local.emp ORDER BY id;
SELECT id, FIRST_VALUE(name) OVER (PARTITION BY dept ORDER BY id) AS first FROM local.emp ORDER BY id;
SELECT id, NTILE(4) OVER (ORDER BY id) AS q FROM local.emp ORDER BY id;
SELECT id, MAX(bonus) OVER (PARTITION BY dept) AS top FROM local.emp ORDER BY id;
SELECT id, MIN(hired) OVER (PARTITION BY dept ORDER BY hired ROWS UNBOUNDED PRECEDING) AS first_hire FROM local.emp ORDER BY id;
SELECT id, ROW_NUMBER() OVER (ORDER BY bonus NULLS FIRST, id) AS rn FROM local.emp ORDER BY id;
SELECT id, SUM(x) OVER (ORDER BY id) AS running FROM local.nums ORDER BY id;
SELECT dept, n, RANK() OVER (ORDER BY n DESC) AS r FROM (SELECT dept, COUNT(*) AS n FROM local.emp GROUP BY dept) AS t ORDER BY dept NULLS LAST;
SELECT id, PERCENT_RANK() OVER (ORDER BY age) AS pr, CUME_DIST() OVER (ORDER BY age) AS cd FROM local.emp WHERE age IS NOT NULL ORDER BY id;

-- ORDER BY, LIMIT and OFFSET.
SELECT id, age FROM local.emp ORDER BY age, id;
SELECT id, age FROM local.emp ORDER BY age DESC, id;
SELECT id, age FROM local.emp ORDER BY age NULLS FIRST, id;
SELECT id, age FROM local.emp ORDER BY age DESC NULLS LAST, id;
SELECT id, name FROM local.emp ORDER BY name, id LIMIT 3;
SELECT id, name FROM local.emp ORDER BY id LIMIT 3 OFFSET 2;
SELECT id, name FROM local.emp ORDER BY id OFFSET 14;
SELECT id FROM local.emp ORDER BY salary * -1, id LIMIT 4;
SELECT id FROM local.emp ORDER BY LOWER(name), id;
SELECT dept, COUNT(*) AS n FROM local.emp GROUP BY dept ORDER BY n DESC, dept NULLS LAST;
SELECT id, hired FROM local.emp ORDER BY hired DESC, id;
SELECT id, last_login FROM local.emp ORDER BY last_login, id;
SELECT * FROM (SELECT id, age FROM local.emp ORDER BY age DESC NULLS LAST LIMIT 5) AS t ORDER BY id;

-- VALUES and SELECT without FROM.
SELECT 1 AS one;
SELECT 'a' AS a, 2 AS b, 3.5 AS c, TRUE AS d, NULL AS e;
VALUES (1, 'one'), (2, 'two'), (3, NULL);
SELECT * FROM (VALUES (1, 2.5), (2, 3.25), (3, 4)) AS t (a, b) WHERE a > 1;
SELECT SUM(a) AS s FROM (VALUES (1), (2), (3), (NULL)) AS t (a);
SELECT a, b FROM (VALUES (1, 'x'), (2, 'y')) AS t (a, b) ORDER BY a DESC;

-- Dates and times.
SELECT id, hired + INTERVAL '30' DAY AS later FROM local.emp ORDER BY id;
SELECT id, hired + INTERVAL '1' MONTH AS next_month FROM local.emp ORDER BY id;
SELECT id, last_login + INTERVAL '1' HOUR AS later, last_login - INTERVAL '15' SECOND AS earlier FROM local.emp ORDER BY id;
SELECT DATE '2024-01-31' + INTERVAL '1' MONTH AS a, DATE '2024-03-31' - INTERVAL '1' MONTH AS b, DATE '2023-02-28' + INTERVAL '1' YEAR AS c;
SELECT TIMESTAMP '2026-01-01 23:30:00' + INTERVAL '45' MINUTE AS a, TIMESTAMP '2026-01-01 00:00:00' - INTERVAL '1' SECOND AS b;
SELECT TIMESTAMP '2024-02-29 12:00:00' + INTERVAL '1' YEAR AS a, TIMESTAMP '2024-02-29 12:00:00' + INTERVAL '1-1' YEAR TO MONTH AS b;
SELECT EXTRACT(YEAR FROM DATE '2026-03-04') AS y, EXTRACT(MONTH FROM DATE '2026-03-04') AS m, EXTRACT(DAY FROM DATE '2026-03-04') AS d;
SELECT EXTRACT(HOUR FROM TIMESTAMP '2026-03-04 05:06:07') AS h, EXTRACT(MINUTE FROM TIMESTAMP '2026-03-04 05:06:07') AS m;
SELECT id, EXTRACT(YEAR FROM hired) AS y, EXTRACT(QUARTER FROM hired) AS q FROM local.emp ORDER BY id;
SELECT DATE '2026-01-01' < DATE '2026-01-02' AS a, TIMESTAMP '2026-01-01 00:00:00' = DATE '2026-01-01' AS b;
SELECT id, day FROM local.events WHERE day BETWEEN DATE '2000-01-01' AND DATE '2025-12-31' ORDER BY id;
SELECT kind, MIN(at) AS first, MAX(at) AS last, COUNT(*) AS n FROM local.events GROUP BY kind;
SELECT id, at FROM local.events ORDER BY at DESC NULLS LAST, id;
SELECT CAST(TIMESTAMP '2026-01-01 10:30:00.123456' AS DATE) AS d, CAST(DATE '1969-12-31' AS TIMESTAMP) AS t;

-- What hop refuses before running.
-- refused: does not run on the local engine
SELECT id, STDDEV_POP(x) OVER (ORDER BY id) FROM local.nums;
-- refused: UTIL.PRINT is a sink
SELECT * FROM util.print;
-- refused: cannot be read by the local engine
SELECT * FROM kafka."existing-topic-1";
-- refused: UNNEST of several collections at once
SELECT * FROM UNNEST(ARRAY[1, 2], ARRAY[3, 4]);
-- refused: has no value
SELECT id FROM local.emp WHERE id = ?;
