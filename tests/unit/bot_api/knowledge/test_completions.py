"""Where the LLM is called: `<base>/v1/chat/completions`, the base given with its `/v1`
(as OpenAI's clients take it) or without (as Ollama's docs give it)."""

import pytest

from bot_api.knowledge.completions import ChatCompletions


@pytest.mark.parametrize(
    "base", ["http://127.0.0.1:11434", "http://127.0.0.1:11434/", "http://127.0.0.1:11434/v1"]
)
def test_the_chat_completions_address_has_one_v1(base: str) -> None:
    llm = ChatCompletions(base, "", "llama3.2:3b", 4.0)
    assert llm.url == "http://127.0.0.1:11434/v1/chat/completions"
