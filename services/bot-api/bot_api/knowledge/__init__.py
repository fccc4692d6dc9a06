"""Knowledge answers: a story's documents and FAQ pairs, read into cited passages and
answered from when no interaction answers (docs/knowledge.md)."""
