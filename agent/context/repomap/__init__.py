"""The repository map: where things are defined, so the model needs fewer steps to find them.

``RepoMap.current`` gives the map for the files the conversation named or changed (``focus``):
the tags of each source file (``files``, ``tags``, cached by ``cache``), ranked as Aider ranks
them (``rank``), cut to a token budget (``render``). It is rebuilt only when what it is made of
changed (the files' stamps, the focus, the budget), and a rebuild that gives the same text
changes nothing, so the prompt it sits in stays byte-identical while the tree stays the same.
"""

from agent.context.repomap.build import MapBuild, RepoMap

__all__ = ["MapBuild", "RepoMap"]
