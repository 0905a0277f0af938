"""Plans: what to measure (plan files, presets, flags) and the run environment."""
