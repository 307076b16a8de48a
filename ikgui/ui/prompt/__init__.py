"""Where the user writes: the prompt editor (history, slash completion) and the
working-prompt panel."""
