"""Controllers and driver aids, ROS-free: speed control, path following."""
