"""Exceptions of the apsp package.

``NegativeCycleError`` subclasses ``scipy.sparse.csgraph.NegativeCycleError``
when scipy is importable, so that code written for scipy catches apsp's too.
"""

from __future__ import annotations

try:
    from scipy.sparse.csgraph import NegativeCycleError as _ScipyNegativeCycleError
except ImportError:  # scipy is optional: without it the base is Exception, as scipy's is
    _ScipyNegativeCycleError = Exception  # type: ignore[misc,assignment]


class NegativeCycleError(_ScipyNegativeCycleError):  # type: ignore[misc,valid-type]
    """The graph has a cycle of negative total weight: no shortest path exists."""


class VerifyError(ValueError):
    """A distance (or predecessor) matrix failed the certificate of :func:`apsp.verify`.

    The message names the first violation (row, column and the values).
    """


class ResumeError(ValueError):
    """A resume (``solve_to_file(..., resume=True)``) of files another solve left.

    The interrupted run's journal names another graph (by hash), algorithm,
    backend, precision, predecessors or output format: nothing is written,
    and the interrupted run's files stay for the solve that made them.
    """
