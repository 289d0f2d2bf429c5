-- One database per annotator's Label Studio (README "Blind annotation": every annotator works in
-- a Label Studio of their own; on one PostgreSQL server each gets its own database). Run once by
-- the postgres image when its volume is new (/docker-entrypoint-initdb.d). For every further
-- annotator service in docker-compose.yml add its POSTGRE_NAME here (on an existing volume:
-- run the same statement with psql).
CREATE DATABASE annotator_1 OWNER labelstudio;
CREATE DATABASE annotator_2 OWNER labelstudio;
