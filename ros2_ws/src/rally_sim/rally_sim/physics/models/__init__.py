"""Model families beside the four-wheel model: the kinematic and the arcade bicycle."""
