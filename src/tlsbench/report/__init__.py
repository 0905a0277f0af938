"""Reports of stored runs: tables, comparisons, HTML, charts and exports."""
