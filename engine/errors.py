"""Errors about what the user gave (a setting, an option, a label to plot): their message is
the whole story, so the command line prints it as one line without a traceback hint."""


class InputError(ValueError):
    """A value the user gave that cannot be used; the message names it and says why."""
