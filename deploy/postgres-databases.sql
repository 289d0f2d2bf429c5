-- A database per Label Studio server (hume_sync/workflow/deploy.py).
CREATE DATABASE manager OWNER labelstudio;
CREATE DATABASE annotator_1 OWNER labelstudio;
CREATE DATABASE annotator_2 OWNER labelstudio;
