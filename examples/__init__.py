"""Example tools and pipelines: real, type-checked, and exercised by the tests and the demo."""
