"""How our programs run as processes: a clean stop on Ctrl-C or SIGTERM, child processes."""
