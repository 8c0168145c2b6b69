"""The command-line programs, their process entry points and process handling."""
