"""Analytics: counters of the turns recorded and their reports (docs/analytics.md)."""
