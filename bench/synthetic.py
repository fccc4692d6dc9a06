"""Generated stories of any size, the same every run (fixed seed)."""

import random
from typing import Any

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "su", "do", "fa", "gi", "hu"]
FRAMES = [
    "i want to {a} the {b}",
    "can you {a} my {b} please",
    "how do i {a} a {b}",
    "{a} the {b} for me",
    "is it possible to {a} {b} today",
    "please help me {a} the {b} {c}",
    "where can i {a} {b}",
    "i need the {b} to {a} now",
    "what is the best way to {a} my {b} and {c}",
]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def story_interactions(count: int, phrases: int = 99, seed: int = 7) -> list[dict[str, Any]]:
    """`count` interactions of `phrases` user-says phrases each; each interaction has its
    own topic words mixed into common sentence frames."""
    rng = random.Random(seed)
    shared = [_word(rng) for _ in range(300)]
    interactions = []
    for number in range(count):
        topic = [_word(rng) for _ in range(6)]
        says = []
        for _ in range(phrases):
            frame = rng.choice(FRAMES)
            says.append(
                frame.format(a=rng.choice(topic), b=rng.choice(topic), c=rng.choice(shared))
            )
        interactions.append({"name": f"Intent {number}", "userSays": list(dict.fromkeys(says))})
    return interactions


def queries(interactions: list[dict[str, Any]], count: int, seed: int = 11) -> list[str]:
    """Mostly reworded phrases of random interactions (a word dropped, a typo), some noise."""
    rng = random.Random(seed)
    result = []
    for _ in range(count):
        if rng.random() < 0.2:
            result.append(" ".join(_word(rng) for _ in range(rng.randint(3, 8))))
            continue
        words = rng.choice(rng.choice(interactions)["userSays"]).split()
        if len(words) > 3:
            words.pop(rng.randrange(len(words)))
        position = rng.randrange(len(words))
        word = words[position]
        if len(word) > 4:
            cut = rng.randrange(1, len(word) - 1)
            words[position] = word[:cut] + word[cut + 1 :]
        result.append(" ".join(words))
    return result
