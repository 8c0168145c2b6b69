"""The car's body: planar (document 002's, the default) or sprung on its suspension."""
