-- hop quickstart: from SQL to a pipeline, over the demo environment.
-- Run it with `make demo`, which applies examples/demo-environment.yaml to a fresh state
-- directory and then runs this script with `hop -f`.

-- What the catalog holds: one schema per Database resource, their tables, and their columns.
!schemas
!tables ADS
!describe PROFILE.MEMBERS

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

-- !specify shows exactly what a statement would write, without writing it: here a trigger on
-- the materialized view, whose job keeps its fire-time window for when it runs.
!specify CREATE TRIGGER audience_report ON ads.audience AS 'audience-report'

-- The trigger runs its job whenever the view advances. FIRE MATERIALIZED VIEW says the view is
-- complete up to now (a job that materializes it does the same): the operator, running in this
-- process, fires the trigger, and the local runtime runs its Job. !wait waits for all of it;
-- `hop logs tabletrigger/audiencereport` then shows what the run printed, and the window it
-- covered.
CREATE TRIGGER audience_report ON ads.audience AS 'audience-report';
FIRE MATERIALIZED VIEW ads.audience;
!wait 60
