"""The view server node (node.py) and its parts: watched cars, the stage, drive mode."""
