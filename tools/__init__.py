"""Process launchers for `make run`, the bench stack and the test fixtures; not part of either
service at run time."""
