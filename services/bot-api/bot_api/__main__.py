import os
import sys

from bot_api import story_command
from bot_api.app import create_app
from shared.cli import main

if sys.argv[1:2] == ["story"]:
    raise SystemExit(story_command.main(sys.argv[2:], os.environ))
raise SystemExit(main("python -m bot_api", create_app, "BOT_API_PORT"))
