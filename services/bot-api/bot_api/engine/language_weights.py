"""How much each term says in the story's language as a whole, for small stories.

Inverse document frequency weighs a term by the story's own phrases, and a small story
has too few of them to tell the language's common words from its content words: in a
story of 7 phrases "I want to", "can you", German "ich möchte", Chinese 我想 and 你们 are
as rare as "pizza", so "I want to order a taxi" scored like "I want to order a pizza"
and 31 to 69 % of the off-topic messages asked of make eval's small stories fell back.
So a term's weight is also multiplied by its weight in the language (`language_weights`),
raised to the power `language_share` of the story's size: the whole of it in a small
story, fading out past `HALFWAY_PHRASES`, so that a large story's own statistics decide
(xSID's stories of 300 phrases and HWU64's of 6,134 score as they did, but for one
Dutch message).

The language's frequencies are wordfreq's small lists (some 30,000 words in each of 42
languages), read once per language and process, when a story of it is first compiled
(0.2 to 0.4 s; 7 to 12 MiB held). Each listed word is read as the story language's
analyser reads a phrase (engine/analysis.py) and its frequency added to each of its
terms, so a stem counts every word form it stands for, and a piece every word it is
part of ("ing " weighs as little as "the", "izza" as much as "pizza"). Chinese and
Japanese words are looked up as our own segmenters write them; no tokenizer of
wordfreq's is used. A language wordfreq has no list of weighs every term 1, as before.

Measured in process (bench/tuning_languages' `story` and `accuracy`, the lexical stage
as the defaults read these languages; docs/matching.md "Small stories"): the small
stories' off-topic messages falling back en 31 → 94 %, de 62 → 94, da 50 → 88, nl 69
→ 81, it 69 → 88, id 44 → 81, ja 50 → 94, zh 31 → 94; their paraphrases answered as
before but for one in German and one in Dutch, which shared only "ihr" / "jullie" with
the delivery phrases.
"""

import functools
import math
from collections.abc import Mapping

from wordfreq import available_languages, get_frequency_dict

from bot_api.domain.settings import LANGUAGE_TAGS
from bot_api.engine.analysis import analyser
from bot_api.engine.phrases import word_terms

COMMONEST_ZIPF = 6.5
"""Terms this common (Zipf: log10 of the count per billion words; "you" 7.0, "can" 6.5,
German "ihr" 6.2, added up over the words a term stands for) weigh `LEAST_WEIGHT`, and
the weight rises linearly to 1 at `RARE_ZIPF`. With the bounds 7.5 and 3.5 of
knowledge/terms.py the small stories let 11 to 15 of their 16 off-topic messages fall
back (id 11, it 12), against 13 to 15."""
RARE_ZIPF = 3.0
"""Terms rarer than this weigh fully, as do those the list lacks ("margherita"); 2.5
measured the same."""
LEAST_WEIGHT = 0.1
"""0.05 cost Indonesian's small story a paraphrase; with 0.2 only 11 to 15 of the 16
off-topic messages fell back (en 11, zh 12)."""
HALFWAY_PHRASES = 40
"""The story size (phrases, the welcome's too) at which the language weight counts half
(`language_share`). 30 let fewer off-topic messages fall back on Braun's stories of 30
to 100 phrases (87/88/97 % against 92/96/98 %, for 0.4 points more of their micro-F1),
25 fewer on Indonesian's small story too (11 of 16 against 13); 50 cost Braun's stories
1.8 points of micro-F1 (0.887 against 0.905, lexically)."""
FADE_POWER = 3
"""How quickly the language weight fades past `HALFWAY_PHRASES`: with 1 xSID's stories
of 300 phrases still read an eighth of it and lost 0.4 to 2.2 points at the default
confidence, with 2 Dutch lost 0.4; with 3 they score as before (Dutch 0.888 against
0.890, one message)."""


def language_share(phrases: int) -> float:
    """The power the language weight is raised to in a story of this many phrases: 1 in
    an empty story, 0.5 at `HALFWAY_PHRASES`, under 0.01 from 190 phrases."""
    return 1 / (1 + (phrases / HALFWAY_PHRASES) ** FADE_POWER)


@functools.cache
def language_weights(language: str) -> Mapping[str, float]:
    """Each term's weight in `language` (engine/phrases.py `word_terms`), for the terms
    commoner than `RARE_ZIPF`: every other term weighs 1."""
    reading = analyser(language)
    frequencies: dict[str, float] = {}
    for listed, frequency in word_frequencies(language).items():
        for word in reading.words(listed):
            for term in word_terms(reading, word):
                frequencies[term] = frequencies.get(term, 0.0) + frequency
    weights = {term: _weight(frequency) for term, frequency in frequencies.items()}
    return {term: weight for term, weight in weights.items() if weight < 1}


def word_frequencies(language: str) -> Mapping[str, float]:
    """wordfreq's small list of the story language, by word as wordfreq writes it;
    empty for a language it has no list of (these weights and knowledge's refusal,
    knowledge/terms.py, read it)."""
    tag = LANGUAGE_TAGS.get(language, "")
    if tag not in available_languages("small"):
        return {}
    return get_frequency_dict(tag, "small")


def _weight(frequency: float) -> float:
    zipf = math.log10(frequency) + 9
    share = (COMMONEST_ZIPF - zipf) / (COMMONEST_ZIPF - RARE_ZIPF)
    return min(1.0, max(LEAST_WEIGHT, share))
