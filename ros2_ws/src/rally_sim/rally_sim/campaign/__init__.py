"""
Campaigns: many scenario runs from one file, on this machine's cores or a Ray cluster.

    ./rally campaign FILE|NAME [--workers N] [--ray auto|ADDRESS] [--output DIR] [--resume]

spec.py reads and expands the file, domains.py gives each worker a ROS
domain of its own, worker.py runs scenarios one after another in one,
pool.py keeps the workers busy (timeouts, retries, a killed worker),
results.py writes the table as runs finish, report.py draws and sums it up,
cli.py is the command.
"""
