"""Sentence encoders: the model behind the semantic stage, run off the event loop."""
