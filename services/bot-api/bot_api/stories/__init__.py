"""Stories: a story's fields, settings and structure, and its life (create, edit, publish,
delete)."""
