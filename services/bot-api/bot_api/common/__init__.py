"""What every feature's HTTP views and schemas share: the management envelope and its field
helpers."""
