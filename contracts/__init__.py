"""Reusable pytest suites: the behaviour every adapter of a port owes, to subclass in an
adapter's own tests. Installed with the package for adapter authors; each module's
docstring shows how to use it."""
