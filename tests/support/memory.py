"""bot-api's repositories in memory (dicts of the typed values they take and return), for
unit tests of the services above them. Each twin sits beside the contract test that holds
it to its MongoDB repository (a feature's repository.py):
tests/integration/bot_api/<feature>/memory.py, imported as
`integration.bot_api.<feature>.memory` (tests/ is on pytest's pythonpath).

`Database` is support.journal's journal with the twins that write every call to it, and
the turns' twin, which does not.
"""

from integration.bot_api.connections.memory import ConnectionsInMemory
from integration.bot_api.entities.memory import EntitiesInMemory
from integration.bot_api.history.memory import TurnsInMemory
from integration.bot_api.interactions.memory import InteractionsInMemory
from integration.bot_api.query.memory import SessionsInMemory
from integration.bot_api.stories.memory import StoriesInMemory
from integration.bot_api.versions.memory import VersionsInMemory
from support.journal import Journal


class Database(Journal):
    def __init__(self) -> None:
        super().__init__()
        self.stories = StoriesInMemory(self)
        self.interactions = InteractionsInMemory(self)
        self.entities = EntitiesInMemory(self)
        self.sessions = SessionsInMemory(self)
        self.connections = ConnectionsInMemory(self)
        self.turns = TurnsInMemory()
        self.versions = VersionsInMemory(self)
