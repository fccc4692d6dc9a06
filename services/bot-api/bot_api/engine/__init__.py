"""The conversation engine: plain Python, no aiohttp and no pymongo, so it is tested in
microseconds and reused wherever a story must answer (the /query endpoint, the console)."""
