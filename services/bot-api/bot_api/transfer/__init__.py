"""A story as a file: Parley's own document (export and import), and the translators
that turn a Dialogflow ES agent or a Rasa project into one (docs/import-export.md).

Plain Python like the engine: no web framework, no database."""
