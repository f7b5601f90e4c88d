-- Run by psql -f against hop serve --pg-port (test/pgwire_clients_test.cc).
CREATE DATABASE clientdb WITH (url 'jdbc:local:clients', schema 'C');
CREATE TABLE c.people (id INTEGER, name VARCHAR, score DOUBLE, born DATE);
INSERT INTO c.people VALUES (1, 'Ada', 9.5, DATE '1815-12-10'), (2, 'Alan', 8.25, DATE '1912-06-23');
CREATE VIEW c.top AS SELECT name FROM c.people WHERE score > 9;
SELECT id, name, score, born FROM c.people ORDER BY id;
SELECT * FROM c.top;
