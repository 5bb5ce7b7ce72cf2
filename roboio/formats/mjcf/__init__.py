"""mjcf formats."""
