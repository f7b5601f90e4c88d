-- Every statement Node pg 8.23.1 (npm) sent to PostgreSQL 15 for a connection and a
-- parameterised query: it sends nothing at connect. Collected with log_statement=all.
-- client: node-pg
select id, name from orders where id = $1
-- end
