"""``catalog="search"``: finding tools in a catalog too large to declare in the prompt.

:mod:`.stem` and :mod:`.index` rank tools for ``tools.$search``; the
built-ins themselves, and which tools a search-mode SDK declares, are
:mod:`.builtins`.
"""
