"""tests/template/ is the template family's files, laid out as in the checkout: copied
under a new name by tests/test_families.py, never collected here."""
collect_ignore = ["tests"]
