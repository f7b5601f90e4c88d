-- hop quickstart: from SQL to a pipeline, over the demo environment.
-- Run it with `make demo`, which applies examples/demo-environment.yaml to a fresh state
-- directory and then runs this script with `hop -f`.

-- What the catalog holds: one schema per Database resource, their tables, and their columns.
!schemas
!tables ADS
!describe PROFILE.MEMBERS

-- Queries run on the local engine, with Calcite's semantics: here across the two demo databases.
SELECT first_name, last_name, page_urn FROM ads.page_views NATURAL JOIN profile.members;

-- How a table is reached: its row type as Avro, and the connector configuration the templates
-- give it when a pipeline reads it (source) or writes it (sink).
!resolve ADS.PAGE_VIEWS

-- A materialized view becomes a pipeline: a CREATE TABLE for every table it reads, one for the
-- table it writes, and the INSERT a Flink job runs. NATURAL JOIN becomes an explicit condition.
!pipeline CREATE MATERIALIZED VIEW ads.audience AS SELECT first_name, last_name FROM ads.page_views NATURAL JOIN profile.members

-- The resources that pipeline is made of, rendered from the templates: here the Flink job.
!specify CREATE MATERIALIZED VIEW ads.audience AS SELECT first_name, last_name FROM ads.page_views NATURAL JOIN profile.members

-- Three-part names reach a catalog; the read and the written table are told apart.
!pipeline INSERT INTO ads_catalog.ads.ad_clicks SELECT * FROM ads_catalog.ads.ad_clicks

-- A partial view writes some columns of an existing table: here Kafka events land in
-- ADS.PAGE_VIEWS. Hints reach the templates: kafka.source.* options go to the source only.
SET hints = 'kafka.source.group.id=quickstart';
!pipeline CREATE MATERIALIZED VIEW ads."PAGE_VIEWS$from-kafka" AS SELECT page_urn, member_urn FROM kafka."page-events" WHERE page_urn LIKE 'urn:li:page:%'
SHOW ALL;
RESET hints;

-- DDL executes: a view and a materialized view become resources, written in one batch. The
-- materialized view writes a View, the Pipeline it owns and the Flink job the Pipeline owns.
-- Nothing on this machine runs Flink jobs, and the Pipeline's status says so (`hop get
-- pipelines`: Pending: no controller for FlinkSessionJob in this control plane). On Kubernetes,
-- which hop does not drive yet, the Flink operator would run it.
CREATE OR REPLACE VIEW ads.visitors AS
  SELECT first_name, last_name, page_urn FROM ads.page_views NATURAL JOIN profile.members;
CREATE OR REPLACE MATERIALIZED VIEW ads.audience AS
  SELECT first_name, last_name FROM ads.visitors WHERE page_urn LIKE 'urn:li:page:%';
!tables ADS

-- A view is inlined into the queries that read it.
SELECT * FROM ads.visitors ORDER BY last_name;

-- Data of your own: a table of the local database is a SQLite table in the state directory,
-- created by CREATE TABLE; INSERT fills it, and queries join it with any other table.
CREATE TABLE IF NOT EXISTS local.visits (member_urn VARCHAR, visited DATE, minutes DECIMAL(6, 1));
INSERT INTO local.visits VALUES
  ('urn:li:member:123', DATE '2026-01-05', 12.5),
  ('urn:li:member:123', DATE '2026-01-06', 3.0),
  ('urn:li:member:456', DATE '2026-01-06', 41.5);
SELECT m.first_name, COUNT(*) AS visits, SUM(v.minutes) AS minutes
  FROM local.visits v JOIN profile.members m ON v.member_urn = m.member_urn
  GROUP BY m.first_name ORDER BY minutes DESC;
!plan SELECT * FROM local.visits v JOIN profile.members m ON v.member_urn = m.member_urn WHERE m.first_name = 'Alice'

-- Rows move: a materialized view into the local database is refreshed by hop. REFRESH runs its
-- query on the local engine in a Job of the local runtime (`hop refresh`), and its rows replace
-- the table's in one transaction. The view's watermark then advances to what the refresh earned:
-- the earliest of its inputs' watermarks, or, as here (LOCAL.VISITS has none), the refresh's
-- start. That refreshes the view over it (WITH ('refresh' 'on-source-change')), which earns the
-- same, and fires the trigger on that one: `hop logs tabletrigger/busiestreport` shows its run.
CREATE MATERIALIZED VIEW local.minutes_by_member AS
  SELECT member_urn, CAST(SUM(minutes) AS DECIMAL(8, 1)) AS minutes FROM local.visits
  GROUP BY member_urn;
CREATE MATERIALIZED VIEW local.busiest WITH ('refresh' 'on-source-change') AS
  SELECT member_urn, minutes FROM local.minutes_by_member WHERE minutes > 10;
CREATE TRIGGER busiest_report ON local.busiest AS 'audience-report';
REFRESH MATERIALIZED VIEW local.minutes_by_member;
!wait 60
SELECT * FROM local.busiest ORDER BY member_urn;
SELECT kind, name, watermark FROM "k8s".watermarks WHERE "SCHEMA" = 'LOCAL';

-- !specify shows exactly what a statement would write, without writing it: here a trigger on
-- the materialized view, whose job keeps its fire-time window for when it runs. Hoptimator's
-- !specify shows only what pipelines and tables render; SET specify = all shows hop's own
-- objects too, for any statement.
SET specify = all;
!specify CREATE TRIGGER audience_report ON ads.audience AS 'audience-report'
RESET specify;

-- The trigger runs its job whenever the view advances. FIRE MATERIALIZED VIEW says the view is
-- complete up to now (a job that materializes it does the same): the operator, running in this
-- process, fires the trigger, and the local runtime runs its Job. !wait waits for all of it;
-- `hop logs tabletrigger/audiencereport` then shows what the run printed, and the window it
-- covered.
CREATE TRIGGER audience_report ON ads.audience AS 'audience-report';
FIRE MATERIALIZED VIEW ads.audience;
!wait 60

-- The "k8s" system tables show hop's resources as tables, read live from the store: the
-- pipeline, its elements and the trigger's run, with the window it covered.
SELECT name, ready, failed, message FROM "k8s".pipelines;
SELECT * FROM "k8s".pipeline_elements;
SELECT "TRIGGER", window_from, window_to, outcome FROM "k8s".trigger_runs;
