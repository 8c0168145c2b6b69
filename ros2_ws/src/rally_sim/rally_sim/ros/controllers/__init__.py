"""Our example controllers' nodes: each converts messages for its law (control/laws/)."""
