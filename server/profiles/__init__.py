"""Launch profiles: the Profile type, the ones beecode ships, and the catalog that profiles.toml
extends.
"""
