"""The sidebar: the conversation tree (a lazy model over the store), its rows' look, the
search box and its hits, the context menu and the tag editor."""
