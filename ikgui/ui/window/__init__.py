"""The main window's parts beside its layout (``main_window``): what it shows as one
Qt-free value reduced from the session's facts (``state``) and the chrome that redraws
what changed of it (``chrome``); the command runner (``runner``) and the commands the
widgets ask for (``commands``); the prompt's draft (``drafts``) and the watcher of other
processes' changes (``watcher``); toolbar actions, keys, layout at any size, dialogs and
the read-only policy. One wiring module (``assembly``) builds and connects them, handing
each the narrow collaborators it uses (``collaborators``)."""
