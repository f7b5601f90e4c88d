-- The data of the differential test: local tables that the test loads into hop (through a
-- session, as a user would) and into PostgreSQL (the same statements printed in PostgreSQL's
-- dialect). NULLs, negatives, zeros, ties, mixed case and non-ASCII text are there on purpose.

CREATE DATABASE diffdb WITH (url 'jdbc:local:', schema 'LOCAL');

CREATE TABLE local.emp (id INTEGER NOT NULL, name VARCHAR(20), dept VARCHAR(10),
  salary DECIMAL(10, 2), bonus DOUBLE, age INTEGER, hired DATE, last_login TIMESTAMP(3),
  active BOOLEAN, manager INTEGER);
INSERT INTO local.emp VALUES
  (1, 'Alice', 'eng', 120000.00, 1500.5, 34, DATE '2019-03-01', TIMESTAMP '2026-01-02 09:15:00.250', TRUE, NULL),
  (2, 'Bob', 'eng', 95000.50, NULL, 28, DATE '2021-07-15', TIMESTAMP '2026-01-03 18:00:00.000', TRUE, 1),
  (3, 'Carol', 'sales', 70000.00, 3000.0, 45, DATE '2015-11-30', NULL, FALSE, 1),
  (4, 'dave', 'sales', 65000.25, 250.25, 23, DATE '2024-02-29', TIMESTAMP '2025-12-31 23:59:59.999', TRUE, 3),
  (5, 'Eve', NULL, 80000.00, 0.0, NULL, DATE '2020-01-01', TIMESTAMP '2026-01-01 00:00:00.000', NULL, 1),
  (6, 'Frank', 'ops', 55000.75, 120.0, 51, DATE '2010-06-15', TIMESTAMP '2024-06-01 12:30:45.500', FALSE, NULL),
  (7, 'Grace', 'eng', 130000.00, 2000.0, 39, DATE '2018-09-10', TIMESTAMP '2026-01-02 10:00:00.000', TRUE, 1),
  (8, 'Heidi', 'ops', 55000.75, NULL, 29, DATE '2022-12-01', NULL, TRUE, 6),
  (9, NULL, 'sales', NULL, 10.5, 33, NULL, NULL, FALSE, 3),
  (10, 'Ivan', 'eng', 99999.99, -50.0, 41, DATE '2017-04-20', TIMESTAMP '2025-11-11 11:11:11.111', TRUE, 7),
  (11, 'Judy', 'hr', 72000.00, 800.0, 36, DATE '2016-08-08', TIMESTAMP '2026-01-01 08:00:00.000', TRUE, NULL),
  (12, 'karl', 'hr', 48000.00, 0.5, 22, DATE '2025-01-06', TIMESTAMP '2025-12-24 17:45:30.000', FALSE, 11),
  (13, 'Léa', 'eng', 105000.00, 1750.0, 31, DATE '2020-10-05', TIMESTAMP '2026-01-03 07:07:07.007', TRUE, 7),
  (14, 'Mallory', 'ops', 61000.00, 99.99, 47, DATE '2012-02-28', TIMESTAMP '2023-03-03 03:03:03.300', FALSE, 6),
  (15, 'Niaj', 'sales', 70000.00, 3000.0, 45, DATE '2015-11-30', TIMESTAMP '2026-01-02 09:15:00.250', TRUE, 3),
  (16, 'Olivia', 'eng', 0.00, NULL, 25, DATE '2026-01-01', NULL, NULL, 1);

CREATE TABLE local.dept (code VARCHAR(10) NOT NULL, title VARCHAR(30), budget DECIMAL(12, 2),
  floor INTEGER);
INSERT INTO local.dept VALUES
  ('eng', 'Engineering', 2500000.00, 3),
  ('sales', 'Sales', 900000.50, 1),
  ('ops', 'Operations', 400000.00, NULL),
  ('hr', 'People', 150000.25, 2),
  ('legal', 'Legal', NULL, 4);

CREATE TABLE local.nums (id INTEGER NOT NULL, n INTEGER, b BIGINT, d DECIMAL(8, 3), x DOUBLE);
INSERT INTO local.nums VALUES
  (1, 0, 0, 0.000, 0.0),
  (2, 1, 1, 1.500, 1.5),
  (3, -1, -10, -1.250, -2.75),
  (4, 7, 3000000000, 123.456, 1e10),
  (5, -7, -3000000000, -0.001, 1e-5),
  (6, 2, 2, 2.000, 0.1),
  (7, NULL, NULL, NULL, NULL),
  (8, 100, 64, 99.999, 100.0),
  (9, 13, 5, 5.555, 3.14159),
  (10, -13, -5, -5.555, -3.14159),
  (11, 3, 9, 0.333, 0.333),
  (12, 42, 42, 42.000, 42.5),
  (13, 5, NULL, 7.125, NULL),
  (14, NULL, 6, NULL, 6.25),
  (15, 8, 8, 0.500, 0.5);

CREATE TABLE local.words (id INTEGER NOT NULL, w VARCHAR, k INTEGER);
INSERT INTO local.words VALUES
  (1, 'apple', 1),
  (2, 'Apple', 2),
  (3, 'APPLE', 1),
  (4, 'banana split', 3),
  (5, '', 2),
  (6, NULL, 1),
  (7, '  padded  ', 3),
  (8, 'naïve café', 2),
  (9, 'a%b_c', 1),
  (10, 'x-y-z', 3),
  (11, 'abcabcabc', 2),
  (12, '100', 1),
  (13, 'Ångström', 3),
  (14, 'O''Reilly', 2);

CREATE TABLE local.events (id INTEGER NOT NULL, at TIMESTAMP(6), day DATE, kind VARCHAR,
  minutes INTEGER);
INSERT INTO local.events VALUES
  (1, TIMESTAMP '2026-01-31 10:00:00.000000', DATE '2026-01-31', 'click', 5),
  (2, TIMESTAMP '2024-02-29 23:59:59.999999', DATE '2024-02-29', 'view', 90),
  (3, TIMESTAMP '2025-12-31 00:00:00.000001', DATE '2025-12-31', 'click', 0),
  (4, TIMESTAMP '1999-12-31 12:34:56.789000', DATE '1999-12-31', 'buy', 1440),
  (5, NULL, NULL, 'view', NULL),
  (6, TIMESTAMP '2026-03-01 00:00:00.000000', DATE '2026-03-01', NULL, 61),
  (7, TIMESTAMP '1970-01-01 00:00:00.000000', DATE '1970-01-01', 'click', 1),
  (8, TIMESTAMP '1969-07-20 20:17:40.000000', DATE '1969-07-20', 'buy', 150);
