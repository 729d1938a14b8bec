"""Action tables (named ranges) and observation encoders."""
