"""Errors raised by the notebook helpers, each saying what is wrong and what to do about it."""


class HailerKernelError(Exception):
    """Base class of every error the helpers raise on purpose."""


class DataFolderError(HailerKernelError):
    """The data folder cannot be read (it is a file, or access is denied)."""


class PeriodError(HailerKernelError):
    """Monthly period files cannot be combined as asked."""
