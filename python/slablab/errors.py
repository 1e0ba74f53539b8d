# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Exceptions raised by slablab.

Every failure of a libslabctl call becomes one of these classes. Each is a
:class:`slablab.Error` *and* the built-in exception that fits the errno, so both
``except slablab.Error`` and ``except FileNotFoundError`` work:

=======================  ==========================  ==========================
class                    also a                      raised for
=======================  ==========================  ==========================
``ModuleNotLoaded``      ``RuntimeError``            family "slablab" not found
``PermissionDenied``     ``PermissionError``         EPERM, EACCES (needs root)
``NotFound``             ``FileNotFoundError``       ENOENT (no such cache/handle)
``AlreadyExists``        ``FileExistsError``         EEXIST
``InvalidArgument``      ``ValueError``              EINVAL, ERANGE; host checks
``Busy``                 ``RuntimeError``            EBUSY (objects still live)
``OperationFailed``      ``OSError``                 any other errno
=======================  ==========================  ==========================

Attributes of every instance: ``errno`` (positive int), ``op`` (the netlink command,
e.g. ``"CACHE_NEW"``, or ``""`` for checks made on the host), ``extack`` (the kernel's
extended-ack message, ``""`` if it sent none). ``str(e)`` is the full message, the
kernel's text included.
"""

import errno as _errno
from typing import Any, Dict, Tuple, Type

__all__ = [
    "Error",
    "ModuleNotLoaded",
    "PermissionDenied",
    "NotFound",
    "AlreadyExists",
    "InvalidArgument",
    "Busy",
    "OperationFailed",
]


class Error(Exception):
    """Base class of every slablab exception.

    :ivar errno: positive errno of the failure (0 when made without one)
    :ivar op: the operation that failed, e.g. ``"CACHE_NEW"`` (``""`` for host checks)
    :ivar extack: the kernel's extended-ack message, ``""`` if none
    """

    errno: int

    def __init__(self, message: str, errno: int = 0, op: str = "", extack: str = "") -> None:
        super().__init__(message)
        self.errno = errno
        self.op = op
        self.extack = extack

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (str(self), self.errno, self.op, self.extack))


class ModuleNotLoaded(Error, RuntimeError):
    """The generic netlink family "slablab" does not exist: load the module
    (``insmod module/slablab.ko`` or ``modprobe slablab``)."""


class PermissionDenied(Error, PermissionError):
    """EPERM/EACCES: the command needs root (CAP_SYS_ADMIN), or the cache belongs to
    another owner (a kernel module, a kmalloc size class)."""


class NotFound(Error, FileNotFoundError):
    """ENOENT: no cache of that name, no such handle."""


class AlreadyExists(Error, FileExistsError):
    """EEXIST: a cache of that name exists."""


class InvalidArgument(Error, ValueError):
    """EINVAL/ERANGE from the kernel, or a request refused by the host-side checks."""


class Busy(Error, RuntimeError):
    """EBUSY: e.g. destroying a cache that still has allocated objects."""


class OperationFailed(Error, OSError):
    """Any other errno (ENOMEM, EOPNOTSUPP, ETIMEDOUT, EPROTO, ...)."""


_BY_ERRNO: Dict[int, Type[Error]] = {
    _errno.EPERM: PermissionDenied,
    _errno.EACCES: PermissionDenied,
    _errno.ENOENT: NotFound,
    _errno.EEXIST: AlreadyExists,
    _errno.EINVAL: InvalidArgument,
    _errno.ERANGE: InvalidArgument,
    _errno.EBUSY: Busy,
}


def error_class(errno: int, module_not_loaded: bool = False) -> Type[Error]:
    """The exception class used for a failure with this errno."""
    if module_not_loaded:
        return ModuleNotLoaded
    return _BY_ERRNO.get(errno, OperationFailed)


def _make(message: str, errno: int, op: str, extack: str,
          module_not_loaded: bool = False) -> Error:
    """Called by slablab._core's exception translator."""
    return error_class(errno, module_not_loaded)(message, errno=errno, op=op, extack=extack)
