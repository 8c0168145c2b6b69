"""The drivetrain: its equations (engine, gears, differentials) and the driveline step."""
