"""The world the cars drive in: stages, their surfaces and paths, and their drawing."""
