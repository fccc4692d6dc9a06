"""A story's interaction in three languages, as the API takes it (docs/languages.md): its
German variant answers in German, its French one has phrases only, so a French user is
answered in the default language."""

from typing import Any

HOURS: dict[str, Any] = {
    "name": "Hours",
    "userSays": ["when are you open"],
    "responses": [{"type": "text", "messages": ["9 to 5."]}],
    "translations": {
        "de": {
            "userSays": ["wann habt ihr geöffnet"],
            "responses": [{"type": "text", "messages": ["9 bis 17 Uhr."]}],
        },
        "fr": {"userSays": ["quand êtes-vous ouverts"]},
    },
}
