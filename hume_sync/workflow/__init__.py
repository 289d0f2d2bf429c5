"""What the commands do, below the commands themselves (:mod:`hume_sync.commands`): setting up
projects, pulling answers, the manager's mirror, status, predictions, close and reveal, export,
deploy, the demo and the ML backend's study source, plus what the command modules share
(:mod:`~hume_sync.workflow.cli_support`: opening the study, its lock, clients).

Modules here may call one another (the demo runs several steps; pull, setup and reveal mirror);
no command module imports another, so a step that two commands need lives here.
"""
