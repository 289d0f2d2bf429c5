"""Pure scoring for HUME: task metrics, human aggregation, agreement, intervals, comparison.

Nothing here talks to Label Studio or loads a model: arrays and plain records in, numbers and
tables out. Every result carries the name of the method that produced it, so a report can say
how each number was made.
"""
