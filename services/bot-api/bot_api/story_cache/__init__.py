"""Compiled stories: the compiler, the process's cache of compiled stories and their phrase
vectors."""
