"""The ROS 2 layer of rally_sim: parameters, message conversion, the node."""
