from integrations_api.app import create_app
from shared.cli import main

raise SystemExit(main("python -m integrations_api", create_app, "INTEGRATIONS_API_PORT"))
