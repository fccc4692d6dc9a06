"""The web console under /console/ and the chat widget (docs/console.md).

The server renders page shells only: every page talks to the public management,
/query and connection APIs from the browser, with the developer token kept in the
browser's session storage, so the console has no access the API does not give.
"""
