"""Instrument checks and study pages: tlsbench against each library's own tools, the cycle model
against published board figures, and the pages made from stored runs (`tlsbench study`)."""
