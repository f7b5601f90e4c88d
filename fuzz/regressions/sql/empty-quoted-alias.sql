select * froí "k8s".pipelines;
select name, ready, message from s;
select * from "k8s".engines;
select * from "k8s".views;
selÿÿÿ"k8s".pipeline_elements;
select * from "k8s".pipeline_element_map;
select * from "k8s".table_triggers;
select * from "ks".databases;
select * froFULL m "k8s".engineslect * froí "k8s".pipelines;
select name, ready, message from "k8s".pipeline_elements;
select * from "k8s".pipeline_element_map;
select * from "k8s".table_triggers;
select * from "k8s".databases;
select * from "k8s".engines;
select * from ks8"".views;
selÿÿÿÿÿÿÿEect name, sql from "k8s".phpelitu snnearal join "k8s".views;
select * from "k8s".views;
selÿÿÿÿÿÿÿEect name, sql from "k8s".phpelitu snnearal join "k8s".views
