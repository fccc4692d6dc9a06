"""The shared knowledge data (../shared/knowledge): XQuAD and a real PDF."""

from pathlib import Path

KNOWLEDGE_DATA = next(
    folder / "shared" / "knowledge"
    for folder in Path(__file__).resolve().parents
    if (folder / "shared" / "knowledge").is_dir()
)
"""Beside the repository (a git worktree may sit a level deeper than the main checkout)."""
HANDBOOK_PDF = KNOWLEDGE_DATA / "documents" / "covid-qa-labelling-handbook.pdf"
"""A real 13-page PDF of 962 KB (Apache-2.0)."""
HANDBOOK_BYTES = HANDBOOK_PDF.read_bytes()
