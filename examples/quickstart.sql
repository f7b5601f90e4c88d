-- hop quickstart: the life of a small pipeline over the demo databases.
-- Run it with `make demo`. Today hop parses and prints these statements back in canonical form;
-- each release makes more of them execute (see README.md for the state of things).

-- Two demo databases: ads (PAGE_VIEWS, AD_CLICKS, CAMPAIGNS) and profile (MEMBERS, COMPANIES).
CREATE DATABASE IF NOT EXISTS ads_database
  WITH (url 'jdbc:demodb://names=ads', schema 'ADS');
CREATE DATABASE IF NOT EXISTS profile_database
  WITH (url 'jdbc:demodb://names=profile', schema 'PROFILE');

-- Session settings travel with the connection.
SET mode = create;
SHOW mode;

-- A view is a stored query; nothing runs until something materialises it.
CREATE OR REPLACE VIEW ads.visitors AS
  SELECT first_name, last_name, page_urn
  FROM ads.page_views NATURAL JOIN profile.members;

-- A materialized view becomes a pipeline: sources, a sink and a job.
CREATE MATERIALIZED VIEW ads.audience
  REFRESHED '*/15 * * * *'
  WITH (retention.days '7')
AS SELECT first_name, last_name FROM ads.visitors WHERE page_urn LIKE 'urn:li:page:%';

-- A trigger runs a job whenever the view's watermark advances, or on a schedule.
CREATE TRIGGER audience_export ON ads.audience AS 'export-job' IN 'default'
  SCHEDULED '@hourly'
  WITH ('job.properties.target' 'warehouse');

FIRE TRIGGER audience_export WITH ('job.properties.reason' 'first run');
PAUSE TRIGGER audience_export;
RESUME TRIGGER audience_export;

-- Clean up.
DROP TRIGGER IF EXISTS audience_export;
DROP MATERIALIZED VIEW IF EXISTS ads.audience;
DROP VIEW IF EXISTS ads.visitors;
