from bot_api.app import create_app
from shared.cli import main

raise SystemExit(main("python -m bot_api", create_app, "BOT_API_PORT"))
