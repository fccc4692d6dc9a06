"""How the word segmenters of Chinese and Japanese compare on xSID zh and ja (the lexical
stage alone, in process): each builds the language's story from its `valid` split and
answers its `test` split at the default confidence; with the time a message takes to
segment, the memory its dictionary adds and its installed size. The candidates that are
not dependencies must be installed by hand to be measured (`uv pip install jieba ...`):
the ones missing are skipped. `python -m bench.segmenters` prints the table of
docs/matching.md."""

import importlib.metadata
import inspect
import json
import statistics
import subprocess
import sys
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.eval_languages import xsid
from bench.eval_stories import DEFAULT_CONFIDENCE
from bot_api.engine import analysis
from bot_api.engine.matching import MatchIndex

Segmenter = Callable[[str], list[str]]


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text.casefold())


def rjieba_cut() -> Segmenter:
    import rjieba

    return lambda text: rjieba.cut(_plain(text))


def jieba_cut() -> Segmenter:
    import jieba

    jieba.setLogLevel(60)
    return lambda text: jieba.lcut(_plain(text))


def sudachi(mode: str, form: str) -> Callable[[], Segmenter]:
    def make() -> Segmenter:
        from sudachipy import Dictionary, SplitMode

        tokenizer = Dictionary(dict="core").tokenizer(getattr(SplitMode, mode))
        return lambda text: [getattr(m, form)() for m in tokenizer.tokenize(_nfkc(text))]

    return make


def fugashi_unidic(lemma: bool) -> Callable[[], Segmenter]:
    def make() -> Segmenter:
        import fugashi

        tagger = fugashi.Tagger()

        def read(word: Any) -> str:
            return str((word.feature.orthBase or word.surface) if lemma else word.surface)

        return lambda text: [read(w) for w in tagger(_nfkc(text))]

    return make


def janome_base() -> Segmenter:
    from janome.tokenizer import Tokenizer

    tokenizer = Tokenizer()
    return lambda text: [t.base_form for t in tokenizer.tokenize(_nfkc(text))]


CANDIDATES: dict[str, dict[str, tuple[Callable[[], Segmenter] | None, tuple[str, ...]]]] = {
    "chinese": {
        "none (runs of characters)": (None, ()),
        "rjieba 0.2.2": (rjieba_cut, ("rjieba",)),
        "jieba 0.42.1": (jieba_cut, ("jieba",)),
    },
    "japanese": {
        "none (runs of characters)": (None, ()),
        "sudachipy 0.7.0, mode C, dictionary form": (
            sudachi("C", "dictionary_form"),
            ("sudachipy", "sudachidict-core"),
        ),
        "sudachipy 0.7.0, mode C, surface": (
            sudachi("C", "surface"),
            ("sudachipy", "sudachidict-core"),
        ),
        "sudachipy 0.7.0, mode A, dictionary form": (
            sudachi("A", "dictionary_form"),
            ("sudachipy", "sudachidict-core"),
        ),
        "fugashi 1.5.2 + unidic-lite, lemma": (fugashi_unidic(True), ("fugashi", "unidic-lite")),
        "fugashi 1.5.2 + unidic-lite, surface": (
            fugashi_unidic(False),
            ("fugashi", "unidic-lite"),
        ),
        "janome 0.5, base form": (janome_base, ("janome",)),
    },
}
CODES = {"chinese": "zh", "japanese": "ja"}


def installed_mib(packages: tuple[str, ...]) -> float:
    total = 0
    for package in packages:
        for file in importlib.metadata.distribution(package).files or ():
            path = Path(str(file.locate()))
            total += path.stat().st_size if path.is_file() else 0
    return total / 2**20


def memory_mib() -> tuple[float, float]:
    """This process's resident and anonymous (private, not file-backed) memory."""
    from pathlib import Path

    fields = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":")
        fields[name] = int(value.split()[0]) / 1024
    return fields["Rss"], fields["Anonymous"]


def memory_added(language: str, name: str) -> tuple[float, float]:
    """The resident and anonymous MiB a candidate (with bot_api) adds to a fresh process once it has
    segmented the language's xSID test split (a memory-mapped dictionary is resident
    only as far as it is read, and shared between processes)."""
    code = (
        "import json, sys, inspect\n"
        f"{inspect.getsource(memory_mib)}\n"
        "texts = json.load(sys.stdin)\n"
        "before = memory_mib()\n"
        "from bench import segmenters as s\n"
        f"make = s.CANDIDATES[{language!r}][{name!r}][0]\n"
        "segment = make() if make else str.split\n"
        "for text in texts: segment(text)\n"
        "after = memory_mib()\n"
        "print(json.dumps([after[0] - before[0], after[1] - before[1]]))\n"
    )
    texts = json.dumps([text for text, _ in xsid(CODES[language])[1]])
    ran = subprocess.run(
        [sys.executable, "-c", code], input=texts, capture_output=True, text=True, check=True
    )
    resident, anonymous = json.loads(ran.stdout.splitlines()[-1])
    return resident, anonymous


def accuracy(language: str, make: Callable[[], Segmenter] | None) -> tuple[float, float]:
    """Accuracy at the default confidence and ms per message segmented (p50)."""
    analysis._SEGMENTERS.pop(language, None)
    if make is not None:
        analysis._SEGMENTERS[language] = make()
    analysis.analyser.cache_clear()
    by_intent, test = xsid(CODES[language])
    index = MatchIndex.build(by_intent, language)
    right = 0
    times = []
    for text, gold in test:
        started = time.perf_counter()
        words = index.analyser.words(text)
        times.append(time.perf_counter() - started)
        found = index.search([words], lambda i: True)
        answered = found and found[0].score >= DEFAULT_CONFIDENCE
        right += answered and found[0].interaction_id == gold
    return right / len(test), 1000 * statistics.median(times)


def main() -> None:
    print(
        "| language | segmenter | xSID accuracy | ms a message (p50) | resident (private) "
        "| installed |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for language, candidates in CANDIDATES.items():
        for name, (make, packages) in candidates.items():
            try:
                size = installed_mib(packages)
                right, ms = accuracy(language, make)
            except (ImportError, importlib.metadata.PackageNotFoundError):
                continue
            resident, anonymous = memory_added(language, name)
            if make is None:
                baseline = (resident, anonymous)
            resident, anonymous = resident - baseline[0], anonymous - baseline[1]
            print(
                f"| {language} | {name} | {right:.3f} | {ms:.3f} "
                f"| {resident:.0f} MiB ({anonymous:.0f}) | {size:.0f} MiB |"
            )


if __name__ == "__main__":
    main()
