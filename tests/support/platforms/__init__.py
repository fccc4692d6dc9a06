"""Stand-ins for the messaging platforms Parley's channels call (docs/channels.md):
local aiohttp servers implementing the part of each platform's HTTP API a channel
uses, refusing a request whose shape or limits the platform's documentation refuses,
and recording the ones they accept."""
